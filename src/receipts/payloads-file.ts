import { clip } from '../clip.ts';
import { readStrictText } from './strict-json.ts';
import type { ReceiptPayloads } from './verify-options.ts';

// D-RCPT-13: "`iari receipts verify --payloads FILE` takes a JSON object mapping a Receipt's `id` to
// {"input"?, "output"?, "context"?}"; its numbers are any RFC 8259 number whose value the nearest
// IEEE 754 double keeps (strict-json.ts anyNumberValue). A file that breaks a rule is refused
// before any Receipt is read (exit 2), never reported as a finding.

export type PayloadsRead = { ok: true; byId: Map<string, ReceiptPayloads> } | { ok: false; detail: string };

const MEMBERS = new Set(['input', 'output', 'context']);
/** D-RCPT-13: a payloads file is at most 1 GiB and nests objects and arrays at most 256 deep (its top-level object counts 1). */
export const MAX_PAYLOADS_BYTES = 1 << 30;
export const MAX_PAYLOADS_DEPTH = 256;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A name from the file, quoted and clipped: a refusal stays one readable line whatever the file holds. */
const quote = (name: string): string => JSON.stringify(clip(name));

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reads a payloads file's bytes: UTF-8 without a byte order mark, then `readPayloadsText`. */
export function readPayloadsBytes(bytes: Uint8Array): PayloadsRead {
  if (bytes.length > MAX_PAYLOADS_BYTES) return { ok: false, detail: `the file is larger than ${MAX_PAYLOADS_BYTES} bytes (1 GiB)` };
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, detail: 'the file is not UTF-8' };
  }
  return readPayloadsText(text);
}

/** Reads the text of a payloads file (the whole file, already decoded). */
export function readPayloadsText(text: string): PayloadsRead {
  if (text.charCodeAt(0) === 0xfeff) return { ok: false, detail: 'the file starts with a byte order mark' };
  const parsed = readStrictText(text, { maxBytes: MAX_PAYLOADS_BYTES, maxDepth: MAX_PAYLOADS_DEPTH, anyNumber: true });
  if (!parsed.ok) return { ok: false, detail: `${parsed.error.detail} at offset ${parsed.error.offset}` };
  if (!isObj(parsed.value)) return { ok: false, detail: 'expected a JSON object mapping Receipt id to {"input"?, "output"?, "context"?}' };
  const byId = new Map<string, ReceiptPayloads>();
  for (const [id, entry] of Object.entries(parsed.value)) {
    if (!isObj(entry)) return { ok: false, detail: `the entry for ${quote(id)} is not an object` };
    const unknown = Object.keys(entry).filter((k) => !MEMBERS.has(k));
    if (unknown.length > 0) {
      const listed = unknown.slice(0, 3).map(quote).join(', ') + (unknown.length > 3 ? ` and ${unknown.length - 3} more` : '');
      return { ok: false, detail: `the entry for ${quote(id)} has ${listed} (allowed: input, output, context)` };
    }
    byId.set(id, entry as ReceiptPayloads);
  }
  return { ok: true, byId };
}
