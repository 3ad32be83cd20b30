import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'mock-server/**/*.test.ts', 'suites/**/*.test.ts', 'scripts/**/*.test.ts'],
    // suites/contract is the vitest adapter over the check catalog; without IARI_BASE_URL it judges the bundled mock.
    exclude: ['node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Our tests send traffic only to this machine: iari refuses any target or proxy that does not
    // resolve to loopback (src/client/connection-options.ts), and proxies from the developer's or
    // CI's environment are cleared so loopback traffic is never sent to one.
    env: { IARI_LOOPBACK_ONLY: '1', HTTP_PROXY: '', HTTPS_PROXY: '', http_proxy: '', https_proxy: '', NO_PROXY: '', no_proxy: '' },
  },
});
