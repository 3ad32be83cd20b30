/** A JSON object (not null, not an array): the guard every reader of a server's JSON starts with. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
