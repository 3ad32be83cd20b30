/**
 * encoding_format "base64": each embedding is the base64 of its float32 values, little-endian
 * (what openai-node decodes with `toFloat32Array`, and OpenAI's Python guide with
 * `np.frombuffer(base64.b64decode(s), dtype=np.float32)`).
 */
export function encodeFloat32Base64(values: readonly number[]): string {
  const buf = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) buf.writeFloatLE(values[i] as number, i * 4);
  return buf.toString('base64');
}

/** The float32 values of a base64 embedding; undefined when it is not canonical base64 of a whole number of float32s. */
export function decodeFloat32Base64(text: string): number[] | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const buf = Buffer.from(text, 'base64');
  if (buf.length % 4 !== 0 || buf.toString('base64') !== text) return undefined;
  const out: number[] = [];
  for (let i = 0; i < buf.length; i += 4) out.push(buf.readFloatLE(i));
  return out;
}
