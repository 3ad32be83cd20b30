import { describe, expect, it } from 'vitest';
import { coordinationFromFlags } from './coordinated-load.ts';

const env = { IARI_RUN_TOKEN: 'run-token-0123456789' };
const shard0 = { index: 0, count: 4 };

describe('the coordination flags', () => {
  it('no coordination flag: null, and the flags that go with one are refused alone', () => {
    expect(coordinationFromFlags({}, null, null, env)).toBeNull();
    expect(() => coordinationFromFlags({ shards: '4' }, null, null, env)).toThrow(/--shards goes with --coordinate or --coordinator/);
  });

  it('--coordinate [HOST:]PORT runs shard 0 or, with --shards N, no shard; --coordinator URL needs --shard', () => {
    expect(coordinationFromFlags({ coordinate: '7070' }, shard0, null, env)).toMatchObject({ listen: { host: '0.0.0.0', port: 7070 }, url: null, shards: null, registerTimeoutMs: 60_000 });
    expect(coordinationFromFlags({ coordinate: '127.0.0.1:0', shards: '3', 'register-timeout': '5s' }, null, null, env)).toMatchObject({ listen: { host: '127.0.0.1', port: 0 }, shards: 3, registerTimeoutMs: 5000 });
    expect(coordinationFromFlags({ coordinator: 'http://iari-load-0.iari-load:7070/x' }, { index: 2, count: 4 }, null, env)).toMatchObject({ url: 'http://iari-load-0.iari-load:7070', listen: null });
    expect(() => coordinationFromFlags({ coordinate: '7070' }, { index: 1, count: 4 }, null, env)).toThrow(/shard 0/);
    expect(() => coordinationFromFlags({ coordinate: 'x:y' }, shard0, null, env)).toThrow(/\[HOST:\]PORT/);
    expect(() => coordinationFromFlags({ coordinator: 'ftp://x' }, shard0, null, env)).toThrow(/http\(s\) URL/);
    expect(() => coordinationFromFlags({ coordinator: 'http://x:1' }, null, null, env)).toThrow(/needs --shard/);
    expect(() => coordinationFromFlags({ coordinate: '1', coordinator: 'http://x:1' }, shard0, null, env)).toThrow(/not both/);
    expect(() => coordinationFromFlags({ coordinate: '1', shards: '4' }, shard0, null, env)).toThrow(/not both/);
  });

  it("the run token comes from the environment, never the server's token", () => {
    expect(coordinationFromFlags({ coordinate: '1' }, shard0, null, env)?.runToken).toBe(env.IARI_RUN_TOKEN);
    expect(coordinationFromFlags({ coordinate: '1', 'run-token-env': 'MY_RUN' }, shard0, null, { MY_RUN: 'another-token-987654' })?.runToken).toBe('another-token-987654');
    expect(() => coordinationFromFlags({ coordinate: '1' }, shard0, null, {})).toThrow(/no token in \$IARI_RUN_TOKEN/);
    expect(() => coordinationFromFlags({ coordinate: '1' }, shard0, env.IARI_RUN_TOKEN, env)).toThrow(/must not be the server's token/);
  });
});
