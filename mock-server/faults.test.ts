import { describe, expect, it } from 'vitest';
import { loadRequirements } from '../src/checks/registry/requirements-registry.ts';
import { HarnessError } from '../src/errors.ts';
import { coreFaults } from './core/fault-catalogue.ts';
import { createCore, type MockCore } from './core/handler.ts';
import type { MockRequest } from './core/types.ts';
import { faultNames, faults } from './faults.ts';
import { startMockServer } from './index.ts';
import { weatherTool } from '../test-support/mock-client.ts';

describe('fault registry', () => {
  it('has unique names, at least 45 faults and 40 core faults, and legal modes that break nothing', () => {
    const names = faults.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(faults.filter((f) => f.kind === 'fault').length).toBeGreaterThanOrEqual(45);
    expect(coreFaults.filter((f) => f.kind === 'fault').length).toBeGreaterThanOrEqual(40);
    for (const f of faults) {
      expect(f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(f.description.length).toBeGreaterThan(10);
      if (f.kind === 'legal') expect(f.breaks).toEqual([]);
      else expect(f.breaks.length, f.name).toBeGreaterThan(0);
    }
  });

  it('cites only requirement IDs that exist in spec/requirements.yaml', () => {
    const known = new Set(loadRequirements().map((r) => r.id));
    const missing = faults.flatMap((f) => [...f.breaks, ...(f.exercises ?? [])].filter((id) => !known.has(id)).map((id) => `${f.name}: ${id}`));
    expect(missing).toEqual([]);
  });

  it('refuses an unknown fault at startup with IARI_FAULT_UNKNOWN (exit 2)', async () => {
    const error = await startMockServer({ faults: ['no-such-fault'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HarnessError);
    expect((error as HarnessError).code).toBe('IARI_FAULT_UNKNOWN');
    expect((error as HarnessError).exitCode).toBe(2);
  });

  it('answers 400 naming x-iari-fault for an unknown fault in the header', async () => {
    const s = await startMockServer({ receipts: false });
    try {
      const res = await fetch(`${s.url}/models`, { headers: { 'x-iari-fault': 'stream-no-done,bogus' } });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { param: string; message: string } };
      expect(body.error.param).toBe('x-iari-fault');
      expect(body.error.message).toContain('bogus');
    } finally {
      await s.close();
    }
  });
});

// Every core fault must change at least one observable answer to a fixed probe session.
const NOW = Date.parse('2026-03-10T12:00:00Z');
const enc = new TextEncoder();

function probes(core: MockCore): { name: string; req: MockRequest }[] {
  const tokens = core.tokens();
  const auth = (token: string | null = tokens.default) => (token === null ? {} : { authorization: `Bearer ${token}` });
  const get = (name: string, path: string, token?: string | null) => {
    const [p, q] = path.split('?');
    return { name, req: { method: 'GET', path: p ?? path, query: new URLSearchParams(q ?? ''), headers: auth(token), body: new Uint8Array() } };
  };
  const post = (name: string, body: unknown, o: { token?: string | null; contentType?: string; headers?: Record<string, string> } = {}) => ({
    name,
    req: {
      method: 'POST',
      path: '/v1/chat/completions',
      query: new URLSearchParams(),
      headers: { ...auth(o.token), 'content-type': o.contentType ?? 'application/json', ...o.headers },
      body: enc.encode(typeof body === 'string' ? body : JSON.stringify(body)),
    },
  });
  const msg = [{ role: 'user', content: 'probe' }];
  const basic = { model: 'iari-mini', messages: msg, max_tokens: 12 };
  const list = [
    get('models', '/v1/models', null),
    get('me', '/v1/me'),
    get('me-anon', '/v1/me', null),
    get('usage-3', '/v1/me/usage?days=3'),
    get('usage-0', '/v1/me/usage?days=0'),
    get('usage-anon', '/v1/me/usage', null),
    post('chat', basic),
    post('chat-n2', { ...basic, n: 2 }),
    post('documented-params', { ...basic, top_p: 0.5, seed: 1, user: 'u' }),
    post('stream-usage', { ...basic, stream: true, stream_options: { include_usage: true } }),
    post('stream', { ...basic, stream: true }),
    post('tools', { ...basic, max_tokens: 100, tools: [weatherTool] }),
    post('tools-stream', { ...basic, max_tokens: 100, stream: true, tools: [weatherTool] }),
    post('chat-anon', basic, { token: null }),
    post('chat-bad-token', basic, { token: 'iari_sk_wrong' }),
    post('bad-json', '{"model":'),
    post('unknown-role', { ...basic, messages: [{ role: 'robot', content: 'x' }] }),
    post('temperature', { ...basic, temperature: 5 }),
    post('empty-messages', { ...basic, messages: [] }),
    post('stream-options-no-stream', { ...basic, stream_options: { include_usage: true } }),
    post('unknown-model-stream', { ...basic, model: 'nope', stream: true }),
    post('retired-model', { ...basic, model: 'iari-legacy' }),
    post('text-plain', basic, { contentType: 'text/plain' }),
    post('too-large', { ...basic, messages: [{ role: 'user', content: 'x'.repeat(1_100_000) }] }),
    post('fail-mid-stream', { ...basic, stream: true }, { headers: { 'x-iari-fail-after-events': '3' } }),
    get('me-after', '/v1/me'),
    get('usage-after', '/v1/me/usage?days=40'),
    ...[1, 2, 3, 4].map((i) => post(`free-${i}`, basic, { token: tokens.byAccount['acct_free'] ?? '' })),
    // After the 4th request (requests_per_minute 3) was refused: what the account's usage counts.
    get('free-me-after-429', '/v1/me', tokens.byAccount['acct_free'] ?? ''),
    post('team-tpm', basic, { token: tokens.byAccount['acct_team'] ?? '' }),
    post('capped', basic, { token: tokens.byAccount['acct_capped'] ?? '' }),
  ];
  return list;
}

function normalise(text: string): string {
  return text.replace(/chatcmpl-[0-9a-f]{24}/g, 'chatcmpl-X').replace(/req_[0-9a-f]{24}/g, 'req_X');
}

function session(fault: string | null): string[] {
  const core = createCore({ faults: fault === null ? [] : [fault], now: () => NOW, defaultToken: 'iari_sk_probe_default', accounts: undefined as never }, faultNames);
  core.admin.retireModel('iari-legacy');
  return probes(core).map(({ name, req }) => {
    const res = core.handle(req);
    const headers = Object.entries(res.headers)
      .filter(([k]) => k !== 'content-length')
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`)
      .join(';');
    let body: string;
    if (res.kind === 'full') {
      body = typeof res.body === 'string' ? res.body : new TextDecoder().decode(res.body);
      res.done?.(true);
    } else {
      body = res.events.map((e) => (e.action === 'destroy' ? '<destroy>' : e.data)).join('');
      res.finish({ sent: res.events.length, interrupted: false });
    }
    return normalise(`${name} ${res.status} ${headers}\n${body}`);
  });
}

describe('every core fault changes observable behaviour', () => {
  const faithful = session(null);

  it('the faithful session is deterministic', () => {
    expect(session(null)).toEqual(faithful);
  });

  for (const fault of coreFaults.filter((f) => f.kind === 'fault')) {
    it(`${fault.name} changes at least one probe answer`, () => {
      const broken = session(fault.name);
      const changed = broken.filter((line, i) => line !== faithful[i]).map((line) => line.split(' ')[0]);
      expect(changed.length, `${fault.name} changed nothing`).toBeGreaterThan(0);
    });
  }
});
