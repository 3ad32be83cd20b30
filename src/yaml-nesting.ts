/**
 * How deep a YAML text nests its flow collections (`[` and `{` outside quotes and comments), read
 * in one pass before the yaml parser sees it. The parser slows down past linear on deep unclosed
 * flow nesting (30,000 `{` take minutes, 35 KB of `[{"k"x":[` 2 s: the fuzz pass's finding in
 * fuzz/regressions/scenario-file) and recurses per level; no file iari reads as YAML (a
 * scenario, a baseline) nests more than a few levels.
 */
export const MAX_FLOW_NESTING = 64;

/** True when `text` opens more than `limit` flow collections at once. */
export function flowNestedTooDeeply(text: string, limit = MAX_FLOW_NESTING): boolean {
  let depth = 0;
  let quote = '';
  let lineStart = true;
  let prev = ' ';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote !== '') {
      if (quote === '"' && c === '\\') i++;
      else if (c === quote) quote = '';
      prev = c;
      continue;
    }
    if (c === '#' && (lineStart || prev === ' ' || prev === '\t')) {
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      i = end;
      prev = '\n';
      lineStart = true;
      continue;
    }
    if (c === '"' || (c === "'" && (lineStart || ' \t[{,:'.includes(prev)))) quote = c;
    else if (c === '[' || c === '{') {
      if (++depth > limit) return true;
    } else if ((c === ']' || c === '}') && depth > 0) depth--;
    lineStart = c === '\n' || (lineStart && (c === ' ' || c === '\t'));
    prev = c;
  }
  return false;
}
