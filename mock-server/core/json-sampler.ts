// A seeded JSON Schema sampler: the mock's answer to `response_format` json_schema is a value that
// validates against the request's schema (property-tested with ajv in json-sampler.test.ts).
// It covers what clients send: OpenAI's strict subset (objects with every property required,
// anyOf, enum, const, $defs/$ref including recursion, string formats and patterns, numeric
// bounds, minItems/maxItems) and the common keywords beyond it (allOf, oneOf, type lists,
// prefixItems, minLength/maxLength, minProperties, uniqueItems). Patterns are expanded by randexp,
// driven by the same seeded generator, so one seed always gives one answer.
import { createRequire } from 'node:module';
import { pick, randomInt, type Rng } from './rng.ts';

type RandExpClass = typeof import('randexp').default;
// randexp is CommonJS whose module.exports is the class itself.
const RandExp = createRequire(import.meta.url)('randexp') as RandExpClass;

type Schema = Record<string, unknown>;

/** Below this depth a recursive schema is expanded; past it the sampler takes the shortest way out. */
const DEEP = 4;
const HARD_LIMIT = 24;

const WORDS = ['alpha', 'river', 'quiet', 'signal', 'harbor', 'lantern', 'orbit', 'paper', 'silver', 'north', 'garden', 'Zürich', 'café'];

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves a local `$ref` ("#", "#/$defs/x", "#/definitions/x", any JSON pointer into the root). */
function resolveRef(ref: string, root: unknown): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchema(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Whether a subschema can lead back into a `$ref` (used to leave recursion once deep enough). */
function mentionsRef(schema: unknown): boolean {
  return JSON.stringify(schema ?? null).includes('"$ref"');
}

/**
 * allOf folded into one schema: properties and required merged, other keywords taken from the last
 * that has them. A property two parts define differently must hold under both (its own allOf); when
 * it is optional it is left out, since the parts may contradict each other and an absent optional
 * property satisfies every part.
 */
function mergeAllOf(schema: Schema, root: unknown): Schema {
  const parts = schema['allOf'];
  if (!Array.isArray(parts)) return schema;
  const { allOf: _drop, ...rest } = schema;
  let merged: Schema = { ...rest };
  const twice = new Set<string>();
  for (const part of parts) {
    const p = isSchema(part) && typeof part['$ref'] === 'string' ? resolveRef(part['$ref'], root) : part;
    if (!isSchema(p)) continue;
    const q = mergeAllOf(p, root);
    const before = isSchema(merged['properties']) ? merged['properties'] : {};
    const properties: Schema = { ...before };
    for (const [key, value] of Object.entries(isSchema(q['properties']) ? q['properties'] : {})) {
      const earlier = before[key];
      if (earlier === undefined || JSON.stringify(earlier) === JSON.stringify(value)) properties[key] = value;
      else {
        properties[key] = { allOf: [earlier, value] };
        twice.add(key);
      }
    }
    const required = [...new Set([...(Array.isArray(merged['required']) ? merged['required'] : []), ...(Array.isArray(q['required']) ? q['required'] : [])])];
    merged = { ...q, ...merged, properties, required };
  }
  const required = new Set(Array.isArray(merged['required']) ? merged['required'] : []);
  const properties = isSchema(merged['properties']) ? merged['properties'] : {};
  for (const key of twice) if (!required.has(key)) delete properties[key];
  return merged;
}

function typeOf(schema: Schema, rng: Rng, deep: boolean): string {
  const t = schema['type'];
  if (typeof t === 'string') return t;
  if (Array.isArray(t) && t.length > 0) {
    const types = t.filter((x): x is string => typeof x === 'string');
    if (deep && types.includes('null')) return 'null';
    const nonNull = types.filter((x) => x !== 'null');
    // Mostly a real value, sometimes null where null is allowed.
    if (types.includes('null') && (nonNull.length === 0 || rng() < 0.25)) return 'null';
    return pick(rng, nonNull.length > 0 ? nonNull : types);
  }
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema) return 'object';
  if ('items' in schema || 'prefixItems' in schema) return 'array';
  if ('minimum' in schema || 'maximum' in schema || 'multipleOf' in schema) return 'number';
  return 'string';
}

function sampleString(schema: Schema, rng: Rng): string {
  const pattern = schema['pattern'];
  if (typeof pattern === 'string') {
    try {
      const gen = new RandExp(pattern);
      gen.max = 4;
      gen.randInt = (a: number, b: number) => randomInt(rng, a, b);
      return gen.gen();
    } catch {
      // An unparsable pattern: fall through to a plain string.
    }
  }
  switch (schema['format']) {
    case 'date-time':
      return new Date(Date.UTC(2026, randomInt(rng, 0, 11), randomInt(rng, 1, 28), randomInt(rng, 0, 23), randomInt(rng, 0, 59), randomInt(rng, 0, 59))).toISOString().replace('.000Z', 'Z');
    case 'date':
      return `2026-${String(randomInt(rng, 1, 12)).padStart(2, '0')}-${String(randomInt(rng, 1, 28)).padStart(2, '0')}`;
    case 'time':
      return `${String(randomInt(rng, 0, 23)).padStart(2, '0')}:${String(randomInt(rng, 0, 59)).padStart(2, '0')}:00Z`;
    case 'duration':
      return `PT${randomInt(rng, 1, 59)}M`;
    case 'email':
      return `${pick(rng, ['ana', 'kwame', 'li', 'sam'])}@example.com`;
    case 'hostname':
      return `${pick(rng, ['api', 'www', 'mail'])}.example.com`;
    case 'ipv4':
      return `192.0.2.${randomInt(rng, 1, 254)}`;
    case 'ipv6':
      return `2001:db8::${randomInt(rng, 1, 0xffff).toString(16)}`;
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000'.replace(/0/g, () => randomInt(rng, 0, 15).toString(16));
    case 'uri':
      return `https://example.com/${pick(rng, WORDS).toLowerCase()}`;
    default:
      break;
  }
  const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 0;
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : Math.max(min, 24);
  let s = pick(rng, WORDS);
  while ([...s].length < min) s += ` ${pick(rng, WORDS)}`;
  const chars = [...s];
  return chars.length > max ? chars.slice(0, max).join('') : s;
}

function sampleNumber(schema: Schema, rng: Rng, integer: boolean): number {
  const exMin = typeof schema['exclusiveMinimum'] === 'number' ? schema['exclusiveMinimum'] : undefined;
  const exMax = typeof schema['exclusiveMaximum'] === 'number' ? schema['exclusiveMaximum'] : undefined;
  let lo = typeof schema['minimum'] === 'number' ? schema['minimum'] : -1e6;
  let hi = typeof schema['maximum'] === 'number' ? schema['maximum'] : 1e6;
  if (typeof schema['minimum'] !== 'number' && typeof schema['maximum'] === 'number') lo = hi - 100;
  if (typeof schema['maximum'] !== 'number' && typeof schema['minimum'] === 'number') hi = lo + 100;
  if (typeof schema['minimum'] !== 'number' && typeof schema['maximum'] !== 'number') [lo, hi] = [0, 100];
  if (exMin !== undefined && exMin >= lo) lo = exMin;
  if (exMax !== undefined && exMax <= hi) hi = exMax;
  const multipleOf = typeof schema['multipleOf'] === 'number' && schema['multipleOf'] > 0 ? schema['multipleOf'] : integer ? 1 : undefined;
  if (multipleOf !== undefined) {
    // Multiples of m strictly inside an exclusive bound, inclusively inside a plain one.
    let k0 = Math.ceil(lo / multipleOf);
    let k1 = Math.floor(hi / multipleOf);
    if (exMin !== undefined && k0 * multipleOf <= exMin) k0 += 1;
    if (exMax !== undefined && k1 * multipleOf >= exMax) k1 -= 1;
    if (integer && !Number.isInteger(multipleOf)) {
      // An integer multiple of a fraction: step by the smallest integer multiple of it.
      const step = lcmWithOne(multipleOf);
      k0 = Math.ceil((k0 * multipleOf) / step);
      k1 = Math.floor((k1 * multipleOf) / step);
      return (k1 >= k0 ? randomInt(rng, k0, k1) : k0) * step;
    }
    const start = k1 >= k0 ? randomInt(rng, k0, Math.min(k1, k0 + 10_000)) : k0;
    // Rounded to the digits of m (0.1 * 3 is 0.3, not 0.30000000000000004), and kept only where x / m is an
    // exact integer in binary floating point, which is how validators decide it (ajv: x / m === parseInt(x / m)).
    const at = (k: number): number => Number((k * multipleOf).toFixed(decimals(multipleOf)));
    for (let step = 0; step <= 64; step++) {
      for (const k of step === 0 ? [start] : [start + step, start - step]) {
        if (k < k0 || k > k1) continue;
        const x = at(k);
        if (Number.isInteger(x / multipleOf)) return x;
      }
    }
    return at(start);
  }
  const span = hi - lo;
  let x = Math.round((lo + rng() * span) * 100) / 100;
  if (x < lo || (exMin !== undefined && x <= exMin)) x = exMin !== undefined ? (lo + hi) / 2 : lo;
  if (x > hi || (exMax !== undefined && x >= exMax)) x = exMax !== undefined ? (lo + hi) / 2 : hi;
  return x;
}

function decimals(x: number): number {
  const s = String(x);
  const e = /e-(\d+)$/.exec(s);
  if (e !== null) return Number(e[1]);
  return s.includes('.') ? (s.split('.')[1] ?? '').length : 0;
}

function lcmWithOne(m: number): number {
  const scale = 10 ** decimals(m);
  const num = Math.round(m * scale);
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  return num / gcd(num, scale);
}

/**
 * A value valid against `schema` (a JSON Schema as clients send it in `response_format`),
 * deterministic for a given `rng` sequence. `root` resolves `$ref`s.
 */
export function sampleJson(schema: unknown, rng: Rng, root: unknown = schema, depth = 0): unknown {
  if (schema === true || schema === undefined) return pick(rng, WORDS);
  if (!isSchema(schema)) return null;
  const deep = depth >= DEEP;
  if (depth > HARD_LIMIT) return null;
  if (typeof schema['$ref'] === 'string') {
    const target = resolveRef(schema['$ref'], root);
    const { $ref: _ref, ...siblings } = schema;
    const merged = isSchema(target) ? { ...target, ...siblings } : siblings;
    return sampleJson(merged, rng, root, depth + 1);
  }
  const s = mergeAllOf(schema, root);
  if ('const' in s) return s['const'];
  if (Array.isArray(s['enum']) && s['enum'].length > 0) return pick(rng, s['enum']);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) {
      const { [key]: _options, ...rest } = s;
      // Deep in a recursive schema, an option that cannot recurse ends the branch.
      const exits = deep ? options.filter((o) => !mentionsRef(o)) : [];
      const chosen = exits.length > 0 ? pick(rng, exits) : key === 'oneOf' ? options[0] : pick(rng, options);
      return sampleJson(isSchema(chosen) ? { ...rest, ...chosen } : chosen, rng, root, depth + 1);
    }
  }
  switch (typeOf(s, rng, deep)) {
    case 'null':
      return null;
    case 'boolean':
      return rng() < 0.5;
    case 'integer':
      return sampleNumber(s, rng, true);
    case 'number':
      return sampleNumber(s, rng, false);
    case 'array': {
      const prefix = Array.isArray(s['prefixItems']) ? s['prefixItems'] : [];
      const min = typeof s['minItems'] === 'number' ? s['minItems'] : 0;
      const max = typeof s['maxItems'] === 'number' ? s['maxItems'] : Number.POSITIVE_INFINITY;
      const wanted = deep || (mentionsRef(s['items']) && depth > 1) ? min : randomInt(rng, Math.max(min, 1), Math.max(min, 1) + 2);
      let count = Math.max(prefix.length > 0 ? Math.min(prefix.length, max) : 0, Math.min(max, wanted));
      // items: false closes the array after its prefixItems.
      if (s['items'] === false) count = Math.min(count, prefix.length);
      const out: unknown[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < count; i++) {
        const item = i < prefix.length ? prefix[i] : s['items'] === false ? undefined : s['items'];
        let value = sampleJson(item, rng, root, depth + 1);
        // uniqueItems: a few redraws; an enum or const too small to fill the array is the schema's own contradiction.
        for (let tries = 0; s['uniqueItems'] === true && seen.has(JSON.stringify(value)) && tries < 8; tries++) value = sampleJson(item, rng, root, depth + 1);
        if (s['uniqueItems'] === true && seen.has(JSON.stringify(value)) && out.length >= min) break;
        seen.add(JSON.stringify(value));
        out.push(value);
      }
      return out;
    }
    case 'object': {
      const properties = isSchema(s['properties']) ? s['properties'] : {};
      const required = new Set(Array.isArray(s['required']) ? s['required'].filter((x): x is string => typeof x === 'string') : []);
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(properties)) {
        // Optional properties now and then, never deep in a recursion.
        if (required.has(name) || (!deep && rng() < 0.5)) out[name] = sampleJson(sub, rng, root, depth + 1);
      }
      for (const name of required) if (!(name in out)) out[name] = sampleJson(s['additionalProperties'] ?? true, rng, root, depth + 1);
      const minProperties = typeof s['minProperties'] === 'number' ? s['minProperties'] : 0;
      for (const [name, sub] of Object.entries(properties)) {
        if (Object.keys(out).length >= minProperties) break;
        if (!(name in out)) out[name] = sampleJson(sub, rng, root, depth + 1);
      }
      for (let i = 0; Object.keys(out).length < minProperties && s['additionalProperties'] !== false && i < minProperties; i++) {
        out[`extra_${i}`] = sampleJson(isSchema(s['additionalProperties']) ? s['additionalProperties'] : true, rng, root, depth + 1);
      }
      return out;
    }
    default:
      return sampleString(s, rng);
  }
}
