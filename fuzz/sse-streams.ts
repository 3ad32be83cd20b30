import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { someText } from './inputs.ts';
import { utf8 } from './target.ts';

/** The recorded and generated streams under fixtures/ (fixtures/streams, fixtures/wild): the SSE targets' seeds. */
export function recordedStreams(): Uint8Array[] {
  const root = fileURLToPath(new URL('../fixtures/', import.meta.url));
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.sse'));
  return files.sort().map((f) => new Uint8Array(readFileSync(join(root, f))));
}

/**
 * A valid event stream with every field kind, comments, the three line endings, an optional BOM:
 * `payload` writes the data lines' values (JSON chunks for the stream checker, any text for the reader).
 */
export function sseStream(payload: fc.Arbitrary<string>): fc.Arbitrary<Uint8Array> {
  const clean = (s: string): string => s.replace(/[\r\n]/g, '');
  const eol = fc.constantFrom('\n', '\n', '\r\n', '\r');
  const line = fc.oneof(
    { arbitrary: fc.tuple(fc.constantFrom('data:', 'data: ', 'data:  ', 'data'), payload.map(clean)).map(([f, v]) => (f === 'data' ? 'data' : f + v)), weight: 6 },
    { arbitrary: fc.tuple(fc.constantFrom('event:', 'event: ', 'id:', 'id: ', 'retry:', 'retry: '), fc.oneof(someText(8), fc.nat().map(String)).map(clean)).map(([f, v]) => f + v), weight: 2 },
    { arbitrary: someText(10).map((v) => `:${clean(v)}`), weight: 1 },
    { arbitrary: fc.tuple(fc.constantFrom('foo', 'dat', 'Data', 'id\u0000'), someText(6).map(clean)).map(([f, v]) => `${f}:${v}`), weight: 1 },
  );
  const block = fc.tuple(fc.array(fc.tuple(line, eol), { minLength: 1, maxLength: 4 }), eol).map(([lines, end]) => lines.map(([l, e]) => l + e).join('') + end);
  return fc
    .tuple(fc.boolean(), fc.array(block, { maxLength: 8 }), fc.option(fc.constantFrom('data: cut', 'data: [DONE]\n', ': x'), { nil: '' }))
    .map(([bom, blocks, tail]) => utf8(`${bom ? '\uFEFF' : ''}${blocks.join('')}${tail}`));
}
