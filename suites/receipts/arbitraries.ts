import fc from 'fast-check';
import { ChainBuilder, Ed25519Key, digestOf, tokenCommitment, type Decision, type Receipt, type VerifyOptions } from '../../src/receipts/index.ts';

/** Replay a failure: FC_SEED=<seed> FC_PATH=<path> npx vitest run suites/receipts */
export function fcParams(numRuns: number): fc.Parameters<unknown> {
  const seed = process.env['FC_SEED'];
  const path = process.env['FC_PATH'];
  return { numRuns, verbose: 1, ...(seed === undefined ? {} : { seed: Number(seed) }), ...(path === undefined ? {} : { path }) };
}

const fixed = (h: string) => Ed25519Key.fromSeed(new Uint8Array(Buffer.from(h, 'hex')));
// RFC 8032 §7.1 test keys.
export const KEYS = {
  issuer: fixed('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'),
  actor: fixed('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb'),
  approver: fixed('c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7'),
  other: fixed('f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5'),
};
export const GRANT = 'grant_prop';
export const TOKEN = 'tok_prop';

/** A canonical decimal from an integer and a scale: (12345n, 3) -> "12.345", (1200n, 2) -> "12". */
export function toDecimal(n: bigint, scale: number): string {
  const digits = n.toString().padStart(scale + 1, '0');
  const int = digits.slice(0, digits.length - scale).replace(/^0+(?=\d)/, '');
  const frac = digits.slice(digits.length - scale).replace(/0+$/, '');
  return frac === '' ? int : `${int}.${frac}`;
}

export const budgetArb = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 9 })).map(([n, s]) => ({ amount: toDecimal(n, s), unit: 'USD' }));
export const resourceArb = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 });
const denyArb: fc.Arbitrary<Decision> = fc.oneof(
  fc.record({ sub: fc.stringMatching(/^X_[A-Z0-9]{1,4}_[A-Z0-9_]{1,6}$/), prose: fc.string({ maxLength: 12 }) }).map(({ sub, prose }) => ({ result: 'denied' as const, reason: 'PROTO_DENY_POLICY', subcode: sub, prose })),
  fc.record({ path: fc.constantFrom('', '/a', '/x~1y', '/0/b~0c') }).map(({ path }) => ({ result: 'denied' as const, reason: 'PROTO_DENY_UNKNOWN_CRIT', crit_object: { object: digestOf({ path }), path } })),
);

export type Step =
  | { kind: 'gate'; allowed: boolean; resource: string; cost: { amount: string; unit: string }; deny: Decision; dt: number }
  | { kind: 'outcome'; pick: number; status: 'ok' | 'failed' | 'interrupted'; cost: { amount: string; unit: string }; dt: number }
  | { kind: 'stop'; mode: 'signature' | 'token'; resource: string; dt: number };

export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('gate' as const), allowed: fc.boolean(), resource: resourceArb, cost: budgetArb, deny: denyArb, dt: fc.nat(3600) }),
  fc.record({ kind: fc.constant('outcome' as const), pick: fc.nat(), status: fc.constantFrom('ok' as const, 'failed' as const, 'interrupted' as const), cost: budgetArb, dt: fc.nat(3600) }),
  fc.record({ kind: fc.constant('stop' as const), mode: fc.constantFrom('signature' as const, 'token' as const), resource: resourceArb, dt: fc.nat(3600) }),
);

export interface ChainCase {
  level: 1 | 2 | 3;
  receipts: Receipt[];
  options: VerifyOptions;
}

/** Applies one step to a builder (outcomes go to an open gate chosen by `pick`; none open: skipped). */
export function applyStep(b: ChainBuilder, step: Step, clock: { t: number }, level: 1 | 2 | 3): boolean {
  clock.t += step.dt;
  const iat = clock.t;
  const context = level >= 3 ? { context: digestOf({ ctx: iat }) } : {};
  if (step.kind === 'gate') {
    b.appendGate({ resource: step.resource, decision: step.allowed ? { result: 'allowed' } : step.deny, cost: step.allowed ? step.cost : { amount: '0', unit: 'USD' }, iat, inputDigest: digestOf({ r: step.resource }), ...context });
    return true;
  }
  if (step.kind === 'outcome') {
    const open = b.openGates;
    if (open.length === 0) return false;
    const gate = open[step.pick % open.length] as string;
    b.appendOutcome(gate, { status: step.status, cost: step.cost, iat, resolved: step.status === 'ok' ? { provider: 'mock', model: 'm', boundary: ['default'] } : null });
    return true;
  }
  if (step.mode === 'signature') b.appendStopApprove({ resource: step.resource, approver: KEYS.approver, iat });
  else b.appendStopApprove({ resource: step.resource, token: TOKEN, iat });
  return true;
}

export function optionsFor(level: 1 | 2 | 3): VerifyOptions {
  return { level, grantId: GRANT, trustedIssuers: [KEYS.issuer.keyref], approvers: [KEYS.approver.keyref], tokenCommitments: [tokenCommitment(TOKEN)], now: 4_000_000_000 };
}

export function newBuilder(level: 1 | 2 | 3, prefix = 'r'): ChainBuilder {
  let n = 0;
  return new ChainBuilder({ issuer: KEYS.issuer, actor: KEYS.actor, level, grantId: GRANT, nextId: () => `${prefix}${++n}` });
}

/** A random chain that also contains at least one of each kind the mutation operators need. */
export const chainArb: fc.Arbitrary<ChainCase> = fc
  .record({ level: fc.constantFrom(1 as const, 2 as const, 3 as const), steps: fc.array(stepArb, { maxLength: 3 }), cost: budgetArb, deny: denyArb })
  .map(({ level, steps, cost, deny }) => {
    const b = newBuilder(level);
    const clock = { t: 1_700_000_000 };
    const tail: Step[] = [
      { kind: 'gate', allowed: true, resource: 'gpt-x', cost, deny, dt: 1 },
      { kind: 'outcome', pick: Number.MAX_SAFE_INTEGER, status: 'ok', cost, dt: 1 },
      { kind: 'gate', allowed: false, resource: 'gpt-y', cost, deny: { result: 'denied', reason: 'PROTO_DENY_POLICY', subcode: 'X_CAP_MONTHLY', prose: 'cap' }, dt: 1 },
      { kind: 'gate', allowed: false, resource: 'gpt-z', cost, deny: { result: 'denied', reason: 'PROTO_DENY_UNKNOWN_CRIT', crit_object: { object: digestOf({}), path: '/c' } }, dt: 1 },
      { kind: 'stop', mode: 'signature', resource: 's/1', dt: 1 },
      { kind: 'stop', mode: 'token', resource: 's/2', dt: 1 },
      { kind: 'gate', allowed: true, resource: 'gpt-w', cost, deny, dt: 1 },
      { kind: 'outcome', pick: Number.MAX_SAFE_INTEGER, status: 'ok', cost, dt: 1 },
      { kind: 'gate', allowed: true, resource: 'gpt-x', cost, deny, dt: 1 },
    ];
    for (const s of steps) applyStep(b, s, clock, level);
    for (const s of tail) {
      // the tail's outcome pairs with the gate just before it (the newest open gate)
      if (s.kind === 'outcome') s.pick = b.openGates.length - 1;
      applyStep(b, s, clock, level);
    }
    void deny;
    return { level, receipts: b.receipts, options: optionsFor(level) };
  });
