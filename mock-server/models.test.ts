import { afterEach, describe, expect, it } from 'vitest';
import { chat, startClient, type Client } from '../test-support/mock-client.ts';

let c: Client | undefined;
afterEach(async () => {
  await c?.close();
  c = undefined;
});

async function ids(client: Client): Promise<string[]> {
  return ((await (await client.get('/models', null)).json()) as { data: { id: string }[] }).data.map((m) => m.id);
}

describe('model availability', () => {
  it('MODELS-010: an unknown model answers 404 model_not_found with param null, as OpenAI does', async () => {
    c = await startClient();
    const res = await c.chat(chat({ model: 'gpt-nonexistent' }));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: Record<string, unknown> }).error).toMatchObject({ type: 'invalid_request_error', code: 'model_not_found', param: null });
  });

  it('MODELS-011: a model retired through the admin API leaves the list and answers 404; an added one is usable', async () => {
    c = await startClient();
    expect((await c.chat(chat({ model: 'iari-legacy' }))).status).toBe(200);
    expect(c.server.admin.retireModel('iari-legacy')).toBe(true);
    expect(await ids(c)).not.toContain('iari-legacy');
    expect((await c.chat(chat({ model: 'iari-legacy' }))).status).toBe(404);
    c.server.admin.addModel({ id: 'iari-next' });
    expect(await ids(c)).toContain('iari-next');
    expect((await c.chat(chat({ model: 'iari-next' }))).status).toBe(200);
  });

  it('MODELS-012: the HTTP admin routes retire and add models while the server runs', async () => {
    c = await startClient();
    const post = (path: string, body: unknown) => fetch(`${c!.server.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('/_iari/models/retire', { id: 'iari-mini' })).status).toBe(200);
    expect((await post('/_iari/models/add', { id: 'iari-preview' })).status).toBe(200);
    expect(await ids(c)).toEqual(['iari-large', 'iari-legacy', 'iari-reasoner', 'iari-preview']);
    expect((await post('/_iari/models/retire', { id: 'iari-mini' })).status).toBe(404);
    const listing = (await (await fetch(`${c.server.origin}/_iari/models`)).json()) as { retired: string[] };
    expect(listing.retired).toEqual(['iari-retired', 'iari-mini']);
  });

  it('MODELS-008: under models-retired-still-listed a fresh mock lists a model it refuses (the fault shows whatever ran before)', async () => {
    c = await startClient();
    expect(await ids(c)).toEqual(['iari-mini', 'iari-large', 'iari-legacy', 'iari-reasoner']);
    const listed = ((await (await fetch(`${c.server.origin}/v1/models`, { headers: { 'x-iari-fault': 'models-retired-still-listed' } })).json()) as { data: { id: string }[] }).data.map((m) => m.id);
    expect(listed).toEqual(['iari-mini', 'iari-large', 'iari-legacy', 'iari-reasoner', 'iari-retired']);
    const res = await c.chat(chat({ model: 'iari-retired' }));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: Record<string, unknown> }).error).toMatchObject({ code: 'model_not_found' });
  });

  it('follows a configured model schedule over time', async () => {
    let now = Date.parse('2026-03-10T12:00:00Z');
    c = await startClient({ now: () => now, modelSchedule: [{ atMs: 60_000, retire: 'iari-mini' }, { atMs: 120_000, add: { id: 'iari-mini-2' } }] });
    expect(await ids(c)).toContain('iari-mini');
    now += 60_000;
    expect(await ids(c)).not.toContain('iari-mini');
    expect(await ids(c)).not.toContain('iari-mini-2');
    now += 60_000;
    expect(await ids(c)).toContain('iari-mini-2');
  });
});
