import { validate } from '@readme/openapi-parser';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { digestOf, verifyChain } from '../../receipts/index.ts';
import { createSchemaValidator, loadOpenApiDocument, OPENAPI_PATH, schemaNames, validateSchema, type SchemaName } from '../../../test-support/schema-validators.ts';

const doc = loadOpenApiDocument();
const dir = mkdtempSync(join(tmpdir(), 'iari-openapi-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});
const clone = <T>(v: T): T => structuredClone(v);

function resolveLocal(ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, token) => obj(node)[token.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Follows $ref chains of components (responses, headers) to the object itself. */
function deref(node: unknown): Json {
  let current = obj(node);
  while (typeof current['$ref'] === 'string') current = obj(resolveLocal(current['$ref']));
  return current;
}

function componentName(schema: unknown): string {
  const ref = obj(schema)['$ref'];
  if (typeof ref !== 'string' || !ref.startsWith('#/components/schemas/')) throw new Error(`expected a component $ref, got ${JSON.stringify(schema)}`);
  return ref.slice('#/components/schemas/'.length);
}

interface ExampleCase {
  where: string;
  mediaType: string;
  schema: unknown;
  value: unknown;
}

/** Every example attached to a request body or response media type in the document. */
function mediaExamples(): ExampleCase[] {
  const out: ExampleCase[] = [];
  const visitContent = (where: string, content: unknown) => {
    for (const [mediaType, media] of Object.entries(obj(content))) {
      const m = obj(media);
      const examples = obj(m['examples']);
      expect(Object.keys(examples).length, `${where} ${mediaType} has examples`).toBeGreaterThan(0);
      for (const [name, example] of Object.entries(examples)) {
        out.push({ where: `${where} ${mediaType} example ${name}`, mediaType, schema: m['schema'], value: obj(example)['value'] });
      }
    }
  };
  for (const [path, item] of Object.entries(obj(doc['paths']))) {
    for (const [method, op] of Object.entries(obj(item))) {
      if (method.startsWith('x-')) continue;
      const operation = obj(op);
      if (operation['requestBody'] !== undefined) visitContent(`${method} ${path} request`, deref(operation['requestBody'])['content']);
      for (const [status, response] of Object.entries(obj(operation['responses']))) {
        visitContent(`${method} ${path} ${status}`, deref(response)['content']);
      }
    }
  }
  return out;
}

function sseData(stream: string): string[] {
  return stream
    .split(/\n\n/)
    .filter((e) => e.length > 0)
    .map((event) => {
      expect(event.startsWith('data: ')).toBe(true);
      return event.slice('data: '.length);
    });
}

function expectRejected(name: SchemaName, value: unknown, pointer: string, keyword?: string) {
  const r = validateSchema(name, value);
  expect(r.ok, `${name} should reject`).toBe(false);
  if (r.ok) return;
  const hit = r.errors.find((e) => e.pointer === pointer && (keyword === undefined || e.keyword === keyword));
  expect(hit, `expected an error at ${pointer}${keyword ? ` (${keyword})` : ''}, got ${JSON.stringify(r.errors)}`).toBeDefined();
}

const completion = () => clone(obj(obj(obj(doc['components'])['schemas'])['ChatCompletion'])['examples'] as unknown[])[0] as Json;
const chunk = () => clone((obj(obj(obj(doc['components'])['schemas'])['ChatCompletionChunk'])['examples'] as unknown[])[0]) as Json;
const toolChunk = () => clone((obj(obj(obj(doc['components'])['schemas'])['ChatCompletionChunk'])['examples'] as unknown[])[3]) as Json;
const user = () => clone((obj(obj(obj(doc['components'])['schemas'])['CurrentUser'])['examples'] as unknown[])[0]) as Json;

describe('spec/openapi.yaml as an OpenAPI 3.1 document', () => {
  it('passes @readme/openapi-parser validation (external Receipt schema left to the receipts suite)', async () => {
    const r = await validate(OPENAPI_PATH, { resolve: { external: false } });
    expect(r.valid, JSON.stringify(r)).toBe(true);
  });

  it('the validator rejects a broken copy (dangling $ref, missing info)', async () => {
    const broken = clone(doc);
    delete broken['info'];
    obj(obj(obj(broken['components'])['schemas'])['ModelList'])['properties'] = { data: { $ref: '#/components/schemas/Nope' } };
    const path = join(dir, 'broken.yaml');
    writeFileSync(path, toYaml(broken));
    const r = await validate(path, { resolve: { external: false } });
    expect(r.valid).toBe(false);
  });

  it('never uses the OpenAPI 3.0 keyword nullable', () => {
    const walk = (node: unknown, at: string): string[] =>
      typeof node !== 'object' || node === null
        ? []
        : Object.entries(node).flatMap(([k, v]) => (k === 'nullable' ? [`${at}/${k}`] : walk(v, `${at}/${k}`)));
    expect(walk(doc, '')).toEqual([]);
  });

  it('marks every response and status description with its source (seed, compat or profile)', () => {
    const unmarked: string[] = [];
    for (const [name, response] of Object.entries(obj(obj(doc['components'])['responses']))) {
      if (!/\b(seed|compat|profile)\b/.test(String(obj(response)['description']))) unmarked.push(name);
    }
    for (const [path, item] of Object.entries(obj(doc['paths']))) {
      for (const [method, op] of Object.entries(obj(item))) {
        if (method.startsWith('x-')) continue;
        for (const [status, response] of Object.entries(obj(obj(op)['responses']))) {
          if (!/\b(seed|compat|profile)\b/.test(String(deref(response)['description']))) unmarked.push(`${method} ${path} ${status}`);
        }
      }
    }
    expect(unmarked).toEqual([]);
  });

  it('puts bearer auth on the account and chat routes and none on /v1/models', () => {
    const paths = obj(doc['paths']);
    expect(doc['security']).toEqual([{ bearerAuth: [] }]);
    for (const p of ['/v1/me', '/v1/me/usage', '/v1/chat/completions', '/v1/receipts']) {
      const op = Object.values(obj(paths[p])).find((o) => typeof o === 'object') as Json;
      expect(op['security'], p).toBeUndefined();
    }
    expect(obj(obj(paths['/v1/models'])['get'])['security']).toEqual([]);
    expect(obj(obj(paths['/v1/receipts/keys'])['get'])['security']).toEqual([]);
  });

  it('marks the receipts routes as the optional extension and leaves out the mock debug routes', () => {
    const paths = obj(doc['paths']);
    expect(obj(paths['/v1/receipts'])['x-iari-extension']).toBe('receipts');
    expect(obj(paths['/v1/receipts/keys'])['x-iari-extension']).toBe('receipts');
    expect(Object.keys(paths).filter((p) => !p.startsWith('/v1/'))).toEqual([]);
  });

  it('declares days as an integer 1..90 defaulting to 30', () => {
    const params = obj(obj(obj(doc['paths'])['/v1/me/usage'])['get'])['parameters'] as Json[];
    expect(params.find((p) => p['name'] === 'days')?.['schema']).toEqual({ type: 'integer', minimum: 1, maximum: 90, default: 30 });
  });
});

describe('examples in spec/openapi.yaml', () => {
  const cases = mediaExamples();
  const validateAny = createSchemaValidator(doc);

  it('has examples on every request body and response', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  it.each(cases.filter((c) => c.mediaType === 'application/json').map((c) => [c.where, c] as const))('%s validates against its schema', (_where, c) => {
    expect(validateAny(componentName(c.schema), c.value)).toEqual({ ok: true });
  });

  it('the error event-stream example is chunks, then one ErrorResponse event and no [DONE]', () => {
    const streams = cases.filter((c) => c.mediaType === 'text/event-stream' && c.where.endsWith('error_mid_stream'));
    expect(streams).toHaveLength(1);
    const data = sseData(String(streams[0]?.value));
    expect(data).not.toContain('[DONE]');
    const last = JSON.parse(data.at(-1) ?? '') as Json;
    expect(validateSchema('ErrorResponse', last)).toEqual({ ok: true });
    for (const d of data.slice(0, -1)) expect(validateSchema('ChatCompletionChunk', JSON.parse(d))).toEqual({ ok: true });
  });

  it('the event-stream example is chunks, one usage chunk, then exactly [DONE]', () => {
    const streams = cases.filter((c) => c.mediaType === 'text/event-stream' && !c.where.endsWith('error_mid_stream'));
    expect(streams.length).toBeGreaterThan(0);
    for (const c of streams) {
      const data = sseData(String(c.value));
      expect(data.at(-1)).toBe('[DONE]');
      const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Json);
      const usage = chunks.filter((ch) => Array.isArray(ch['choices']) && (ch['choices'] as unknown[]).length === 0);
      expect(usage).toHaveLength(1);
      for (const ch of chunks) {
        expect(validateSchema(usage.includes(ch) ? 'UsageChunk' : 'ChatCompletionChunk', ch)).toEqual({ ok: true });
      }
    }
  });

  it('every component schema example validates against its component', () => {
    let count = 0;
    for (const [name, schema] of Object.entries(obj(obj(doc['components'])['schemas']))) {
      for (const example of (obj(schema)['examples'] as unknown[] | undefined) ?? []) {
        count += 1;
        expect(validateAny(name, example), `${name} example`).toEqual({ ok: true });
      }
    }
    expect(count).toBeGreaterThanOrEqual(15);
  });

  it('the receipt-list example is a chain the receipts verifier accepts, and x-receipt-gate names its gate', () => {
    const list = obj(obj(obj(obj(obj(obj(obj(obj(doc['paths'])['/v1/receipts'])['get'])['responses'])['200'])['content'])['application/json'])['examples'])['one_completion'];
    const value = obj(obj(list)['value']);
    const data = value['data'] as Json[];
    expect(data).toHaveLength(2);
    const keys = obj(obj(obj(obj(obj(obj(doc['components'])['schemas'])['ReceiptKeys'])['examples'] as unknown[])[0]));
    const issuer = String(obj((keys['keys'] as unknown[])[0])['kid']);
    const result = verifyChain(data, { trustedIssuers: [issuer], expectedHead: String(value['head']), now: 1_763_712_100 });
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(obj(obj(doc['components'])['headers'])['XReceiptGate']).toMatchObject({ example: digestOf(data[0]) });
    // Negative control: the same chain with a changed cost is rejected.
    const tampered = clone(data);
    obj(tampered[1]?.['cost'])['amount'] = '1';
    expect(verifyChain(tampered, { trustedIssuers: [issuer] }).valid).toBe(false);
  });

  it('every header and parameter example matches its schema', () => {
    const headers = obj(obj(doc['components'])['headers']);
    for (const [name, header] of Object.entries(headers)) {
      const h = obj(header);
      const schema = obj(h['schema']);
      const value = h['example'];
      if (typeof schema['$ref'] === 'string') {
        expect(validateAny(componentName(schema), value), name).toEqual({ ok: true });
      } else {
        expect(typeof value, name).toBe('string');
        expect(new RegExp(String(schema['pattern']), 'u').test(String(value)), name).toBe(true);
      }
    }
  });
});

describe('hand-written invalid documents are rejected with the right pointer', () => {
  it('every named component compiles', () => {
    for (const name of schemaNames) expect(() => validateSchema(name, null)).not.toThrow();
  });

  it('CHAT-004: wrong object on a completion', () => {
    expectRejected('ChatCompletion', { ...completion(), object: 'text_completion' }, '/object', 'const');
  });

  it('CHAT-STREAM-006: wrong object on a chunk', () => {
    expectRejected('ChatCompletionChunk', { ...chunk(), object: 'chat.completions.chunk' }, '/object', 'const');
  });

  it('CHAT-005: created in milliseconds', () => {
    expectRejected('ChatCompletion', { ...completion(), created: 1_763_712_000_000 }, '/created', 'maximum');
    expectRejected('ChatCompletionChunk', { ...chunk(), created: 1_763_712_000_000 }, '/created', 'maximum');
  });

  it('CHAT-009: missing choices[0].index', () => {
    const c = completion();
    delete obj((c['choices'] as unknown[])[0])['index'];
    expectRejected('ChatCompletion', c, '/choices/0/index', 'required');
  });

  it('MODELS-002: a bare-array model list', () => {
    expectRejected('ModelList', [{ id: 'm', object: 'model', created: 1, owned_by: 'x' }], '', 'type');
  });

  it('MODELS-007: owned_by as a list', () => {
    expectRejected('ModelList', { object: 'list', data: [{ id: 'm', object: 'model', created: 1, owned_by: ['x'] }] }, '/data/0/owned_by', 'type');
  });

  it('ME-021: a features flag as a string', () => {
    const u = user();
    obj(u['features'])['ember_os'] = 'false';
    expectRejected('CurrentUser', u, '/features/ember_os', 'type');
  });

  it('ME-019: an extra feature flag that is not a boolean', () => {
    const u = user();
    obj(u['features'])['beta'] = 1;
    expectRejected('CurrentUser', u, '/features/beta', 'type');
  });

  it('ME-013: spend_usd as a string', () => {
    const u = user();
    obj(u['usage'])['spend_usd'] = '1.23';
    expectRejected('CurrentUser', u, '/usage/spend_usd', 'type');
  });

  it('CHAT-013: finish_reason "" on a completion and on a chunk', () => {
    const c = completion();
    obj((c['choices'] as unknown[])[0])['finish_reason'] = '';
    expectRejected('ChatCompletion', c, '/choices/0/finish_reason', 'enum');
    const ch = chunk();
    obj((ch['choices'] as unknown[])[0])['finish_reason'] = '';
    expectRejected('ChatCompletionChunk', ch, '/choices/0/finish_reason', 'enum');
  });

  it('CHAT-STREAM-017: accepts a chunk with finish_reason null', () => {
    const ch = chunk();
    obj((ch['choices'] as unknown[])[0])['finish_reason'] = null;
    expect(validateSchema('ChatCompletionChunk', ch)).toEqual({ ok: true });
  });

  it('TOOLS-006: arguments as an object', () => {
    const c = completion();
    obj((c['choices'] as unknown[])[0])['message'] = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: { city: 'Paris' } } }],
    };
    expectRejected('ChatCompletion', c, '/choices/0/message/tool_calls/0/function/arguments', 'type');
  });

  it('TOOLS-012: a tool-call delta without index', () => {
    const ch = toolChunk();
    delete obj((obj(obj((ch['choices'] as unknown[])[0])['delta'])['tool_calls'] as unknown[])[0])['index'];
    expectRejected('ChatCompletionChunk', ch, '/choices/0/delta/tool_calls/0/index', 'required');
  });

  it('CHAT-015: usage of the wrong type', () => {
    expectRejected('ChatCompletion', { ...completion(), usage: '15 tokens' }, '/usage', 'type');
  });

  it('CHAT-STREAM-023: a usage chunk whose choices is null', () => {
    expectRejected('UsageChunk', { ...chunk(), choices: null, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }, '/choices', 'type');
  });

  it('CHAT-STREAM-025: a content chunk carrying usage', () => {
    expectRejected('ChatCompletionChunk', { ...chunk(), usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }, '/usage', 'type');
  });

  it('ERR-005: an integer error code', () => {
    expectRejected('ErrorResponse', { error: { message: 'boom', type: 'server_error', param: null, code: 500 } }, '/error/code', 'type');
  });

  it('ERR-004: an error without param', () => {
    expectRejected('ErrorResponse', { error: { message: 'boom', type: 'server_error', code: null } }, '/error/param', 'required');
  });

  it('ERR-001: a {"detail": ...} body', () => {
    expectRejected('ErrorResponse', { detail: 'Not Found' }, '/error', 'required');
  });

  it('CHAT-023: an unknown role in a request points at the role', () => {
    expectRejected('ChatCompletionRequest', { model: 'm', messages: [{ role: 'wizard', content: 'hi' }] }, '/messages/0/role', 'discriminator');
  });

  it('CHAT-027: a tool message without tool_call_id', () => {
    expectRejected('ChatCompletionRequest', { model: 'm', messages: [{ role: 'tool', content: 'x' }] }, '/messages/0/tool_call_id', 'required');
  });

  it('CHAT-025: temperature above 2', () => {
    expectRejected('ChatCompletionRequest', { model: 'm', messages: [{ role: 'user', content: 'x' }], temperature: 2.5 }, '/temperature', 'maximum');
  });

  it('CHAT-026: accepts an assistant message with content null and tool_calls', () => {
    const request = {
      model: 'm',
      messages: [
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{}' },
      ],
      an_unknown_member: true,
    };
    expect(validateSchema('ChatCompletionRequest', request)).toEqual({ ok: true });
  });

  it('USAGE-006: a daily row with a datetime instead of a date', () => {
    const row = { date: '2026-11-21T00:00:00Z', requests: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, spend_usd: 0 };
    expectRejected('DailyUsage', { object: 'list', days: 1, data: [row] }, '/data/0/date', 'pattern');
  });

  it('RCPT-HTTP-004: a receipt list whose head is not a digest', () => {
    const list = { object: 'list', mandate: { id: 'm', grant_id: 'g', actor: 'did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw' }, head: 'sha256:XYZ', data: [] };
    expectRejected('ReceiptList', list, '/head');
  });

  it('RCPT-HTTP-005: a receipt list element is checked against receipt.schema.json', () => {
    const list = { object: 'list', mandate: { id: 'm', grant_id: 'g', actor: 'did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw' }, head: null, data: [{ type: 'receipt' }] };
    expectRejected('ReceiptList', list, '/data/0/proto', 'required');
    expectRejected('Receipt', { type: 'receipt' }, '/proto', 'required');
  });
});
