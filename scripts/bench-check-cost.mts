// Usage: npx tsx scripts/bench-check-cost.mts BASE_ROOT [ROOT]: the check worker's CPU per event of a
// plain 2,000-event chat stream (TimingBuilder: its per-response work), two checkouts alternated in
// one process (A B A B, 21 pairs after a warm-up), so a shared machine's drift falls on both.
// Either checkout may predate the protocol contract (TimingBuilder(stream) then).
const load = async (root: string): Promise<() => any> => {
  const tb = await import(`${root.startsWith('/') ? root : `${process.cwd()}/${root}`}/src/load/measure/timing-builder.ts`);
  if (tb.checkScope !== undefined) {
    const { defaultProtocols } = await import(`${root.startsWith('/') ? root : `${process.cwd()}/${root}`}/src/protocols/registry.ts`);
    const scope = tb.checkScope(defaultProtocols);
    const sent = { api: 'chat-completions', stream: true, includeUsage: true };
    return () => new tb.TimingBuilder(true, sent, scope);
  }
  return () => new tb.TimingBuilder(true);
};
const A = await load(process.argv[2] ?? '.');
const B = await load(process.argv[3] ?? '.');
const chunk = (delta: Record<string, unknown>, finish: string | null = null): string => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
let body = chunk({ role: 'assistant', content: '' });
for (let i = 0; i < 2000; i++) body += chunk({ content: ' word' });
body += chunk({}, 'stop') + `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2000, total_tokens: 2003 } })}\n\ndata: [DONE]\n\n`;
const reads: Buffer[] = [];
const buf = Buffer.from(body);
for (let i = 0; i < buf.length; i += 4096) reads.push(buf.subarray(i, i + 4096));
const once = (make: () => any): void => {
  const b = make();
  b.headers(200, 'text/event-stream');
  for (const r of reads) b.feed(r, 1n);
  const part = b.end(2n);
  if (part.error !== null || part.outputTokens !== 2000) throw new Error(JSON.stringify(part.error));
};
for (let i = 0; i < 30; i++) { once(A); once(B); }
const ratios: number[] = [];
const cpu = (make: () => any): number => { const c0 = process.cpuUsage(); for (let i = 0; i < 20; i++) once(make); const c = process.cpuUsage(c0); return (c.user + c.system) / (20 * 2002); };
const as: number[] = [], bs: number[] = [];
for (let k = 0; k < 21; k++) { const a = cpu(A); const b = cpu(B); as.push(a); bs.push(b); ratios.push(b / a); }
const med = (x: number[]) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)]!;
console.log(`A ${process.argv[2] ?? '.'}: ${med(as).toFixed(3)} µs/event; B ${process.argv[3] ?? '.'}: ${med(bs).toFixed(3)} µs/event; B/A pair by pair: median ${med(ratios).toFixed(3)}, range ${Math.min(...ratios).toFixed(3)}..${Math.max(...ratios).toFixed(3)}`);
