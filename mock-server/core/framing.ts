import type { LegalMode } from './types.ts';
import { mulberry32, type Rng } from './rng.ts';

// Legal-but-unusual SSE framing (WHATWG SSE allows all of these); shared by every adapter.

export const legalModeOfFault: Readonly<Record<string, LegalMode>> = {
  'legal-crlf': 'crlf',
  'legal-lone-cr': 'lone-cr',
  'legal-comments': 'comments',
  'legal-data-no-space': 'data-no-space',
  'legal-tiny-writes': 'tiny-writes',
  'legal-split-utf8': 'split-utf8',
  'legal-multiline-data': 'multiline-data',
};

export function legalModesOf(faults: ReadonlySet<string>): LegalMode[] {
  const modes: LegalMode[] = [];
  if (faults.size === 0) return modes;
  for (const name of faults) {
    const mode = legalModeOfFault[name];
    if (mode !== undefined) modes.push(mode);
  }
  return modes;
}

/** Rewrites one canonical event (`data: ...\n\n`) in the selected framing. */
export function frameEvent(data: string, modes: readonly LegalMode[]): string {
  if (modes.length === 0 || data.length === 0) return data;
  let out = data;
  if (modes.includes('multiline-data') && out.startsWith('data: {')) {
    // A JSON payload split over two data lines; the reader joins them with "\n" (JSON whitespace).
    const at = out.indexOf(',"');
    if (at > 0) out = `${out.slice(0, at + 1)}\ndata: ${out.slice(at + 1)}`;
  }
  if (modes.includes('data-no-space')) out = out.replace(/^data: /gm, 'data:');
  if (modes.includes('comments')) out = `: keep-alive\n${out}`;
  if (modes.includes('crlf')) out = out.replace(/\n/g, '\r\n');
  else if (modes.includes('lone-cr')) out = out.replace(/\n/g, '\r');
  return out;
}

/** Splits the bytes of one event into the pieces to write (tiny writes, or inside a UTF-8 character). */
export function writePieces(bytes: Uint8Array, modes: readonly LegalMode[], rng: Rng): Uint8Array[] {
  if (modes.includes('tiny-writes')) {
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; ) {
      const size = 1 + Math.floor(rng() * 7);
      pieces.push(bytes.subarray(i, i + size));
      i += size;
    }
    return pieces;
  }
  if (modes.includes('split-utf8')) {
    const cuts: number[] = [];
    for (let i = 1; i < bytes.length; i++) {
      // A continuation byte (10xxxxxx) after a lead byte: cut between them.
      if (((bytes[i] ?? 0) & 0xc0) === 0x80 && ((bytes[i - 1] ?? 0) & 0xc0) === 0xc0) cuts.push(i);
    }
    if (cuts.length === 0) return [bytes];
    const pieces: Uint8Array[] = [];
    let from = 0;
    for (const c of cuts) {
      pieces.push(bytes.subarray(from, c));
      from = c;
    }
    pieces.push(bytes.subarray(from));
    return pieces;
  }
  return [bytes];
}

export function framingRng(seed: number): Rng {
  return mulberry32(seed);
}
