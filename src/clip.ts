/**
 * A piece of untrusted input quoted in a message (a key, a value, a lexeme from a file or a server),
 * cut after `max` characters: whatever the input holds, the message stays one short readable line.
 */
export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** `clip`, written as a JSON string: a line feed or a control character in the input stays escaped, so the message stays one line. */
export function quoted(text: string, max = 60): string {
  return JSON.stringify(clip(text, max));
}
