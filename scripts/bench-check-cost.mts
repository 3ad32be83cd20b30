// Usage: npx tsx scripts/bench-check-cost.mts "$PWD" (a checkout root): the check worker's CPU per event of a plain stream.
// TimingBuilder (the check worker's per-response work) over a 2,000-event plain stream, repeated.
const root = process.argv[2]!;
const { TimingBuilder } = await import(`${root}/src/load/timing-builder.ts`);
const chunk = (delta: Record<string, unknown>, finish: string | null = null): string => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
let body = chunk({ role: 'assistant', content: '' });
for (let i = 0; i < 2000; i++) body += chunk({ content: ' word' });
body += chunk({}, 'stop') + `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2000, total_tokens: 2003 } })}\n\ndata: [DONE]\n\n`;
const reads: Buffer[] = [];
const buf = Buffer.from(body);
for (let i = 0; i < buf.length; i += 4096) reads.push(buf.subarray(i, i + 4096));
const once = (): void => {
  const b = new TimingBuilder(true);
  b.headers(200, 'text/event-stream');
  for (const r of reads) b.feed(r, 1n);
  b.end(2n);
};
for (let i = 0; i < 30; i++) once();
const runs: number[] = [];
for (let k = 0; k < 7; k++) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < 40; i++) once();
  const c = process.cpuUsage(c0);
  runs.push((c.user + c.system) / (40 * 2002));
}
runs.sort((a, b) => a - b);
console.log(root.split('/').pop(), 'cpu us per event: median', runs[3]!.toFixed(3), 'min', runs[0]!.toFixed(3));
