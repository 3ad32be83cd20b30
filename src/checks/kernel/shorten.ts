/**
 * Shortens text for a finding's message at a token boundary, never mid-token: JSON is cut between
 * two of its tokens (never inside a string or a number), other text at a space. What was left out
 * is counted: `… (N more bytes)`.
 */
const JSON_TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{}[\]:,]|\s+/y;

function jsonShortenAt(text: string, max: number): number {
  JSON_TOKEN.lastIndex = 0;
  let end = 0;
  for (;;) {
    const m = JSON_TOKEN.exec(text);
    if (m === null || JSON_TOKEN.lastIndex > max) return end;
    end = JSON_TOKEN.lastIndex;
    if (end >= text.length) return end;
  }
}

function textShortenAt(text: string, max: number): number {
  const space = text.lastIndexOf(' ', max);
  if (space > max / 2) return space;
  // One long word: cut on a code point boundary (not inside a surrogate pair).
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const trimmed = text.trimStart();
  const json = trimmed.startsWith('{') || trimmed.startsWith('[') || trimmed.startsWith('"');
  let cut = json ? jsonShortenAt(text, max) : 0;
  if (cut === 0) cut = textShortenAt(text, max);
  const head = text.slice(0, cut).trimEnd();
  return `${head}… (${Buffer.byteLength(text.slice(head.length), 'utf8')} more bytes)`;
}
