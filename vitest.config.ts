import { defineConfig } from 'vitest/config';

// Suites whose assertions are clocks and memory measured against ground truth (load timing,
// hostile servers' wall time and peak RSS) or that load the whole machine (npm pack and install):
// they run last, one file at a time, alone. Everything else runs two files at a time: most of it
// waits on sockets and child processes, so a second worker fills the idle core.
const alone = ['suites/load/**/*.test.ts', 'suites/hostile/**/*.test.ts', 'suites/pack/**/*.test.ts'];

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
          include: ['src/**/*.test.ts', 'mock-server/**/*.test.ts', 'suites/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: ['node_modules/**', ...alone],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: alone,
          exclude: ['node_modules/**'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
