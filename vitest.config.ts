import { defineConfig } from 'vitest/config';

// Six tiers (README, "Tests"). `npm test` runs `shared`; `npm run test:clocks` runs `alone`,
// `npm run test:slow` runs `slow`, `slow-pairs` and `fuzz`, `npm run test:engines` runs `engines`;
// `npm run test:all` (what .ci/run runs) runs all six in order.
// - shared: everything that is not below, two files at a time: most of it waits on sockets and
//   child processes, so a second worker fills the idle core.
// - alone: suites whose assertions are clocks measured against ground truth (load timing): they
//   run after shared, one file at a time.
// - slow: whole-product runs that take minutes and load the whole machine, one at a time after the
//   clocks: hostile servers with default deadlines (wall time and peak RSS, beside a busy sibling
//   spinning every core), the capacity search and cancel-capacity (load runs at fixed levels).
// - slow-pairs: whole-product runs that judge no clock against the machine, two at a time after
//   slow: npm pack and offline installs, the GitHub Action's scripts, a third-party server, the
//   model-cap run (bounded by its own stated deadline, minutes above what it takes). Never beside
//   the hostile suite, whose busy sibling starved the Action's `iari load` into a breached SLO.
// - fuzz: the fuzz pass (a minute of generated inputs per parser, fuzz/fuzz-pass.ts), dealt to two
//   shard files run side by side, one per core: it measures no clock, and nothing else runs beside it.
const slow = ['suites/hostile/hostile.test.ts', 'suites/load/capacity-search.test.ts', 'suites/load/cancel-capacity.test.ts'];
const slowPairs = ['suites/hostile/model-cap.test.ts', 'suites/pack/**/*.test.ts', 'suites/action/**/*.test.ts', 'suites/third-party/**/*.test.ts'];
// The fuzz pass: a minute of generated inputs per parser of untrusted bytes, every core busy (docs/fuzzing.md).
const fuzz = ['fuzz/fuzz-pass-*.test.ts'];
const alone = ['suites/load/**/*.test.ts'];
// engines: a real engine in the loop (llama.cpp's llama-server built from source on first run,
// cached under .cache/llama-server/; docs/engines.md). Last, one file at a time.
const engines = ['suites/engines/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Our tests send traffic only to this machine: iari refuses any target or proxy that does not
    // resolve to loopback (src/client/connection-options.ts), and proxies from the developer's or
    // CI's environment are cleared so loopback traffic is never sent to one.
    env: { IARI_LOOPBACK_ONLY: '1', HTTP_PROXY: '', HTTPS_PROXY: '', http_proxy: '', https_proxy: '', NO_PROXY: '', no_proxy: '' },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          // suites/contract is the vitest adapter over the check catalog; without IARI_BASE_URL it judges the bundled mock.
          include: ['src/**/*.test.ts', 'mock-server/**/*.test.ts', 'suites/**/*.test.ts', 'scripts/**/*.test.ts', 'test-support/**/*.test.ts', 'fuzz/**/*.test.ts'],
          exclude: ['node_modules/**', ...alone, ...slow, ...slowPairs, ...fuzz, ...engines],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: alone,
          exclude: ['node_modules/**', ...slow, ...slowPairs, ...engines],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: slow,
          exclude: ['node_modules/**', ...engines],
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: 'slow-pairs',
          include: slowPairs,
          exclude: ['node_modules/**', ...engines],
          maxWorkers: 2,
          sequence: { groupOrder: 3 },
        },
      },
      {
        extends: true,
        test: {
          name: 'fuzz',
          include: fuzz,
          exclude: ['node_modules/**'],
          maxWorkers: 2,
          sequence: { groupOrder: 4 },
        },
      },
      {
        extends: true,
        test: {
          name: 'engines',
          include: engines,
          exclude: ['node_modules/**'],
          maxWorkers: 1,
          sequence: { groupOrder: 5 },
        },
      },
    ],
  },
});
