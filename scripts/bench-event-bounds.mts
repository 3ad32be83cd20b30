// Usage: npx tsx scripts/bench-event-bounds.mts "$PWD" (a checkout root): the main thread's CPU per event
// for the event bounds (src/load/measure/event-bounds.ts) over a plain 2,000-event stream, read in 4 KiB pieces.
const root = process.argv[2]!;
const { EventBounds } = await import(`${root}/src/load/measure/event-bounds.ts`);
const chunk = (delta: Record<string, unknown>, finish: string | null = null): string => `data: ${JSON.stringify({ id: 'chatcmpl-0123456789', object: 'chat.completion.chunk', created: 1764201600, model: 'iari-mini', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
let body = chunk({ role: 'assistant', content: '' });
for (let i = 0; i < 2000; i++) body += chunk({ content: ' word' });
body += chunk({}, 'stop') + 'data: [DONE]\n\n';
const reads: Buffer[] = [];
const buf = Buffer.from(body);
for (let i = 0; i < buf.length; i += 4096) reads.push(buf.subarray(i, i + 4096));
const once = (): void => {
  const b = new EventBounds(true);
  for (const r of reads) if (b.feed(r) !== null) throw new Error('refused a plain stream');
};
for (let i = 0; i < 30; i++) once();
const runs: number[] = [];
for (let k = 0; k < 7; k++) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < 60; i++) once();
  const c = process.cpuUsage(c0);
  runs.push((c.user + c.system) / (60 * 2003));
}
runs.sort((a, b) => a - b);
console.log(root.split('/').pop(), 'event bounds, cpu us per event: median', runs[3]!.toFixed(3), 'min', runs[0]!.toFixed(3), `(${Math.round(buf.length / 2003)} bytes per event)`);
