import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { ExitCode } from '../exit-codes.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { parseFlags } from './args.ts';
// Only what `verify` needs is loaded up front (start-up is part of the wait on a short file);
// `sign` and `keygen` load the signing side when they run.
import { DIGEST_PATTERN } from '../receipts/digest.ts';
import { FINDING_CODES, type Finding } from '../receipts/findings.ts';
import { readPublicKeyref } from '../receipts/keyref.ts';
import { parseStrictText } from '../receipts/strict-json.ts';
import { MAX_PAYLOADS_BYTES, readPayloadsBytes } from '../receipts/payloads-file.ts';
import type { ChainVerifyResult } from '../receipts/chain-verifier.ts';
import type { Ed25519Key } from '../receipts/signing-key.ts';
import type { GateInput, OutcomeInput } from '../receipts/chain-builder.ts';
import { VerifyOptionsError, type ReceiptPayloads, type VerifyOptions } from '../receipts/verify-options.ts';
import type { StreamOptions } from '../receipts/verify-chain.ts';

const HELP = `iari receipts: verify, sign and make keys for Receipt chains (spec/DECISIONS.md, Receipts)

usage:
  iari receipts verify FILE... [--trust KEY]... [--approver KEY]... [--level 1|2|3]
                       [--head DIGEST] [--grant-id ID] [--service-id ID]
                       [--token-commitment DIGEST]... [--payloads FILE] [--strict-wire]
                       [--strict-clock] [--jobs N] [--max-findings N] [--json]
  iari receipts sign ACTS.jsonl --key ISSUER.key [--actor-key ACTOR.key] [--approver-key KEY.key]
                       [--level 1|2|3] [--grant-id ID] [--service-id ID] [--out FILE]
  iari receipts keygen --out PREFIX [--force]

verify   Checks each FILE as one Mandate's chain (JSONL, or one JSON array), streamed in bounded
         memory: strict JSON, schema, rules, signatures, links, pairing. KEY is a did:key keyref
         or a .pub file. Issuers not given with --trust are reported ISSUER_UNTRUSTED. A KEY that
         is not a valid Ed25519 key (small order, non-canonical) exits 2 before any FILE is read.
         An empty FILE (or [], or blank lines only) is a valid empty chain.
         Without --head, a chain cut short at its end cannot be detected.
         --payloads FILE: a JSON object mapping Receipt id to {"input"?, "output"?, "context"?}:
         the request body, the assembled output (JSON array of assistant messages) and the
         Context Envelope that input_digest, output_digest and context must be the digests of
         (IO_DIGEST_MISMATCH, CONTEXT_DIGEST_MISMATCH; D-RCPT-13). A number in it is read as the
         nearest IEEE 754 double when the number JCS writes for that double has the same decimal
         value as the text; otherwise the file exits 2 before any Receipt is read (2^60 written in
         full is refused: JCS writes it 1152921504606847000).
           read:   0.1, 1e20, -0, 1E-7, 9007199254740992
           exit 2: 9007199254740993, 1152921504606846976, 3.141592653589793238, 1e400, 1e-400
         --strict-clock: an iat more than 300 s ahead of this clock is an error, not a warning.
         --jobs N: worker threads for signatures and the other per-Receipt checks of long chains
         (default: the number of cores; 1: one thread).
         Exit 0 every chain valid, 1 a chain invalid, 2 unreadable input or bad arguments.
sign     Reads one act per line and writes the signed, linked chain as JSONL (stdout or --out).
         Gate line:    {"act":{"verb","resource","input_digest"?},"decision":{...},"cost":{...},
                        "context"?,"token"?,"approval"?:true,"iat"?,"id"?}
         Outcome line: {"gate":N,"outcome":{"status",...},"cost":{...},"iat"?,"id"?}
                       (N = 0-based line number of its gate). "approval":true signs with --approver-key.
keygen   Writes PREFIX.key (private Ed25519 JWK, mode 0600) and PREFIX.pub (the did:key keyref)
         and prints the keyref. The private key is never printed.
`;

const usage = (message: string) => new HarnessError(HarnessErrorCode.USAGE, `receipts: ${message}`, { hint: 'see iari receipts --help' });

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(HELP);
    return sub === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(HELP);
    return ExitCode.ok;
  }
  if (sub === 'verify') return verify(rest);
  if (sub === 'sign') return sign(rest);
  if (sub === 'keygen') return keygen(rest);
  throw usage(`unknown subcommand "${sub}" (verify, sign, keygen)`);
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `receipts: cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

function keyrefArg(value: string, flag: string): string {
  const text = value.startsWith('did:') ? value : readText(value, `--${flag} key file`);
  const k = readPublicKeyref(text);
  // D-RCPT-21: a key given to the verifier that is not a valid key (D-RCPT-03) is refused before any Receipt is read.
  if (!k.ok) throw usage(`--${flag} ${value}: not a valid Ed25519 key (${k.reason}); refused before any Receipt is read`);
  return k.keyref;
}

function levelArg(value: string | undefined): 1 | 2 | 3 {
  if (value === undefined) return 1;
  if (value === '1' || value === '2' || value === '3') return Number(value) as 1 | 2 | 3;
  throw usage(`--level must be 1, 2 or 3, got "${value}"`);
}

function digestArg(value: string, flag: string): string {
  if (!DIGEST_PATTERN.test(value)) throw usage(`--${flag} must be sha256: followed by 64 lowercase hex digits`);
  return value;
}

async function verify(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'receipts verify',
    argv,
    {
      trust: { type: 'string', multiple: true },
      approver: { type: 'string', multiple: true },
      level: { type: 'string' },
      head: { type: 'string' },
      'grant-id': { type: 'string' },
      'service-id': { type: 'string' },
      'token-commitment': { type: 'string', multiple: true },
      'strict-wire': { type: 'boolean' },
      'strict-clock': { type: 'boolean' },
      payloads: { type: 'string' },
      jobs: { type: 'string' },
      'max-findings': { type: 'string' },
      json: { type: 'boolean' },
    },
    true,
  );
  if (positionals.length === 0) throw usage('verify needs at least one FILE');
  const options: VerifyOptions & StreamOptions = { level: levelArg(values.level) };
  if (values.trust !== undefined) options.trustedIssuers = values.trust.map((v) => keyrefArg(v, 'trust'));
  if (values.approver !== undefined) options.approvers = values.approver.map((v) => keyrefArg(v, 'approver'));
  if (values.head !== undefined) options.expectedHead = digestArg(values.head, 'head');
  if (values['grant-id'] !== undefined) options.grantId = values['grant-id'];
  if (values['service-id'] !== undefined) options.serviceId = values['service-id'];
  if (values['token-commitment'] !== undefined) options.tokenCommitments = values['token-commitment'].map((v) => digestArg(v, 'token-commitment'));
  if (values['strict-wire'] === true) options.strictWire = true;
  if (values['strict-clock'] === true) options.strictClock = true;
  if (values.payloads !== undefined) {
    const byId = payloadsArg(values.payloads);
    options.payloads = (_index, id) => (id === undefined ? undefined : byId.get(id));
  }
  if (values.jobs !== undefined) {
    if (!/^[1-9][0-9]{0,2}$/.test(values.jobs)) throw usage('--jobs must be an integer 1..999');
    options.jobs = Number(values.jobs);
  }
  if (values['max-findings'] !== undefined) {
    if (!/^[1-9][0-9]{0,6}$/.test(values['max-findings'])) throw usage('--max-findings must be an integer 1..9999999');
    options.maxFindings = Number(values['max-findings']);
  }
  const { verifyReceiptFile } = await import('../receipts/verify-chain.ts');
  const results: { file: string; result: ChainVerifyResult }[] = [];
  for (const file of positionals) {
    try {
      results.push({ file, result: await verifyReceiptFile(file, options) });
    } catch (error) {
      if (error instanceof VerifyOptionsError) throw usage(`${error.message}; refused before any Receipt is read`);
      throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `receipts: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  if (values.json === true) process.stdout.write(`${JSON.stringify({ files: results.map(({ file, result }) => ({ file, ...result })) }, null, 2)}\n`);
  else for (const { file, result } of results) process.stdout.write(humanSummary(file, result));
  return results.every((r) => r.result.valid) ? ExitCode.ok : ExitCode.conformanceFailed;
}

/** D-RCPT-13: `--payloads FILE`, a JSON object mapping Receipt id to its payloads; refused (exit 2) before any Receipt is read. */
function payloadsArg(path: string): Map<string, ReceiptPayloads> {
  let bytes: Buffer;
  try {
    // D-RCPT-13: a file over the limit is refused by its size, before it is read.
    const size = statSync(path).size;
    if (size > MAX_PAYLOADS_BYTES) throw usage(`--payloads ${path}: the file is larger than ${MAX_PAYLOADS_BYTES} bytes (1 GiB)`);
    bytes = readFileSync(path);
  } catch (error) {
    if (error instanceof HarnessError) throw error;
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `receipts: cannot read --payloads file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const read = readPayloadsBytes(bytes);
  if (!read.ok) throw usage(`--payloads ${path}: ${read.detail}`);
  return read.byId;
}

function findingLine(kind: string, f: Finding): string {
  const where = f.index === null ? 'chain' : `#${f.index}`;
  return `  ${kind} ${where.padEnd(6)} ${f.code.padEnd(28)} ${f.pointer ?? ''}${f.pointer ? '  ' : ''}${FINDING_CODES[f.code]} (${f.detail})\n`;
}

export function humanSummary(file: string, r: ChainVerifyResult): string {
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  let out = `${file}: ${r.valid ? 'VALID' : 'INVALID'}  ${plural(r.count, 'receipt')}, level ${r.level}, ${plural(r.errors.length, 'error')}, ${plural(r.warnings.length, 'warning')}\n`;
  out += `  head ${r.head ?? '(none)'}\n`;
  for (const f of r.errors) out += findingLine('error  ', f);
  for (const f of r.warnings) out += findingLine('warning', f);
  if (r.omitted > 0) out += `  ... ${r.omitted} more findings not shown (--max-findings)\n`;
  for (const n of r.notes) out += `  note: ${n}\n`;
  return out;
}

async function privateKeyArg(path: string, flag: string): Promise<Ed25519Key> {
  const { readPrivateKeyText } = await import('../receipts/key-file.ts');
  const k = readPrivateKeyText(readText(path, `--${flag}`));
  if (!k.ok) throw usage(`--${flag} ${path}: ${k.reason}`);
  return k.key;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

async function sign(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    'receipts sign',
    argv,
    {
      key: { type: 'string' },
      'actor-key': { type: 'string' },
      'approver-key': { type: 'string' },
      level: { type: 'string' },
      'grant-id': { type: 'string' },
      'service-id': { type: 'string' },
      out: { type: 'string' },
    },
    true,
  );
  if (positionals.length !== 1) throw usage('sign needs exactly one ACTS.jsonl file');
  if (values.key === undefined) throw usage('sign needs --key ISSUER.key');
  const issuer = await privateKeyArg(values.key, 'key');
  const actor = values['actor-key'] === undefined ? issuer : await privateKeyArg(values['actor-key'], 'actor-key');
  const approver = values['approver-key'] === undefined ? undefined : await privateKeyArg(values['approver-key'], 'approver-key');
  const { ChainBuilder } = await import('../receipts/chain-builder.ts');
  const level = levelArg(values.level);
  if (level >= 2 && values['grant-id'] === undefined) throw usage('--level 2 and 3 need --grant-id');
  const builder = new ChainBuilder({
    issuer,
    actor,
    level,
    ...(values['grant-id'] === undefined ? {} : { grantId: values['grant-id'] }),
    ...(values['service-id'] === undefined ? {} : { serviceId: values['service-id'] }),
  });
  const lines = readText(positionals[0] as string, 'acts file').split(/\r?\n/);
  const gateDigests = new Map<number, string>();
  const out: string[] = [];
  lines.forEach((line, n) => {
    if (line.trim() === '') return;
    const parsed = parseStrictText(line);
    if (!parsed.ok || !isObj(parsed.value)) throw usage(`acts line ${n + 1}: ${parsed.ok ? 'not a JSON object' : parsed.error.detail}`);
    const v = parsed.value;
    try {
      if (v['outcome'] !== undefined) {
        const gate = gateDigests.get(Number(v['gate']));
        if (gate === undefined) throw new Error(`"gate" must be the 0-based line number of an earlier allowed gate`);
        const o = v['outcome'] as Obj;
        const input: OutcomeInput = { status: o['status'] as OutcomeInput['status'], cost: v['cost'] as OutcomeInput['cost'] };
        if (o['effects'] !== undefined) input.effects = o['effects'] as string[];
        if (o['output_digest'] !== undefined) input.outputDigest = o['output_digest'] as string;
        if (o['resolved'] !== undefined) input.resolved = o['resolved'] as OutcomeInput['resolved'];
        if (typeof v['iat'] === 'number') input.iat = v['iat'];
        if (typeof v['id'] === 'string') input.id = v['id'];
        out.push(JSON.stringify(builder.appendOutcome(gate, input).receipt));
        return;
      }
      const act = (v['act'] ?? {}) as Obj;
      const input: GateInput = { verb: act['verb'] as string, resource: act['resource'] as string, decision: v['decision'] as GateInput['decision'], cost: v['cost'] as GateInput['cost'] };
      if (act['input_digest'] !== undefined) input.inputDigest = act['input_digest'] as string;
      if (v['context'] !== undefined) input.context = v['context'] as string;
      if (v['token'] !== undefined) input.token = v['token'] as string;
      if (v['approval'] === true) {
        if (approver === undefined) throw new Error('"approval": true needs --approver-key');
        input.approver = approver;
      }
      if (typeof v['iat'] === 'number') input.iat = v['iat'];
      if (typeof v['id'] === 'string') input.id = v['id'];
      const sealed = builder.appendGate(input);
      gateDigests.set(n, sealed.digest);
      out.push(JSON.stringify(sealed.receipt));
    } catch (error) {
      throw usage(`acts line ${n + 1}: ${(error as Error).message}`);
    }
  });
  const text = out.length === 0 ? '' : `${out.join('\n')}\n`;
  if (values.out === undefined) process.stdout.write(text);
  else writeFileSync(values.out, text);
  process.stderr.write(`signed ${out.length} receipts; issuer ${issuer.keyref}; head ${builder.head ?? '(none)'}\n`);
  return ExitCode.ok;
}

async function keygen(argv: string[]): Promise<number> {
  const { values } = parseFlags('receipts keygen', argv, { out: { type: 'string' }, force: { type: 'boolean' } });
  if (values.out === undefined || values.out === '') throw usage('keygen needs --out PREFIX (writes PREFIX.key and PREFIX.pub)');
  const keyPath = `${values.out}.key`;
  const pubPath = `${values.out}.pub`;
  if (values.force !== true && (existsSync(keyPath) || existsSync(pubPath))) throw usage(`${keyPath} or ${pubPath} exists (use --force to replace)`);
  const { Ed25519Key } = await import('../receipts/signing-key.ts');
  const { privateKeyFileText } = await import('../receipts/key-file.ts');
  const key = Ed25519Key.generate();
  try {
    writeFileSync(keyPath, privateKeyFileText(key), { mode: 0o600, flag: values.force === true ? 'w' : 'wx' });
    chmodSync(keyPath, 0o600);
    writeFileSync(pubPath, `${key.keyref}\n`, { flag: values.force === true ? 'w' : 'wx' });
  } catch (error) {
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `receipts: cannot write ${keyPath}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  process.stdout.write(`${key.keyref}\n`);
  process.stderr.write(`wrote ${keyPath} (private, mode 0600) and ${pubPath}\n`);
  return ExitCode.ok;
}
