// Preloaded by scripts/profile-footprint.ts into the process it profiles (node --import): records each
// module as it loads (its URL, source size, and the memory then), the memory when the first HTTP
// request reaches a server in the process (the bundled mock: every import of the start-up done, no
// request answered yet), optionally a heap snapshot at that moment, and the process's end state.
// Writes FOOTPRINT_OUT as JSON at exit. A profiling aid, never loaded by the product.
import diagnostics from 'node:diagnostics_channel';
import { registerHooks } from 'node:module';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';
import v8 from 'node:v8';

const out = process.env.FOOTPRINT_OUT;
const snapshot = process.env.FOOTPRINT_SNAPSHOT;
const t0 = performance.now();
const mib = (x) => Math.round((x / 2 ** 20) * 10) / 10;
const memory = () => Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, mib(v)]));
const spaces = () => Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, { usedMiB: mib(s.space_used_size), sizeMiB: mib(s.space_size) }]));
const cpuMs = () => {
  const c = process.cpuUsage();
  return Math.round((c.user + c.system) / 1000);
};
const modules = [];
// Garbage collections by kind: how many, and their pauses' total on the main thread.
const gc = { minor: { count: 0, ms: 0 }, major: { count: 0, ms: 0 }, other: { count: 0, ms: 0 } };
const record = { startedAt: { ms: 0, cpuMs: cpuMs(), memory: memory() }, modules, gc };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR ? 'minor' : e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR ? 'major' : 'other';
    gc[kind].count++;
    gc[kind].ms += e.duration;
  }
}).observe({ entryTypes: ['gc'] });

registerHooks({
  load(url, context, nextLoad) {
    const result = nextLoad(url, context);
    const bytes = result.source == null ? 0 : typeof result.source === 'string' ? Buffer.byteLength(result.source) : result.source.byteLength;
    modules.push({ url, bytes, ms: Math.round(performance.now() - t0), rssMiB: mib(process.memoryUsage().rss) });
    return result;
  },
});

const onRequest = () => {
  diagnostics.unsubscribe('http.server.request.start', onRequest);
  record.firstRequest = { ms: Math.round(performance.now() - t0), cpuMs: cpuMs(), modules: modules.length, memory: memory(), spaces: spaces() };
  if (snapshot) record.firstRequest.snapshot = v8.writeHeapSnapshot(snapshot);
};
diagnostics.subscribe('http.server.request.start', onRequest);

process.on('exit', () => {
  record.exit = { ms: Math.round(performance.now() - t0), cpuMs: cpuMs(), modules: modules.length, memory: memory(), spaces: spaces(), maxRssMiB: mib(process.resourceUsage().maxRSS * 1024) };
  if (out) writeFileSync(out, JSON.stringify(record));
});
