import { digestOf } from './digest.ts';
import { approveAct, sealReceipt, signAct } from './seal.ts';
import type { Ed25519Key } from './signing-key.ts';
import type { Receipt } from './types.ts';

export interface ResealOptions {
  /** Every key that may sign: issuers (by iss), actors (actor_sig), approvers (approval.kid). */
  keys: readonly Ed25519Key[];
  /** Re-sign act.actor_sig (needs grantId). */
  grantId?: string;
  /** Re-sign approvals over this service id (default each Receipt's iss). */
  resignApproval?: boolean;
  serviceId?: string;
  /** Positions whose envelope sig is kept as is (to keep a deliberately bad sig). */
  keepSig?: ReadonlySet<number>;
}

/**
 * Re-signs and re-links a (mutated) chain: every prev/gate that named the digest of an original
 * Receipt is rewritten to the digest of its resealed version. `originalDigests[k]` is the digest
 * position k had before the mutation (undefined for inserted Receipts). Used by tests and the
 * vector generator to make "resealed" mutations that only a semantic rule can catch.
 */
export function resealChain(mutated: readonly Receipt[], originalDigests: readonly (string | undefined)[], options: ResealOptions): Receipt[] {
  const byRef = new Map(options.keys.map((k) => [k.keyref, k] as const));
  const renamed = new Map<string, string>();
  const out: Receipt[] = [];
  mutated.forEach((input, k) => {
    let r: Receipt = structuredClone(input);
    if (r.prev !== undefined && renamed.has(r.prev)) r.prev = renamed.get(r.prev) as string;
    if (r.gate !== undefined && renamed.has(r.gate)) r.gate = renamed.get(r.gate) as string;
    const actorKey = byRef.get(r.actor);
    if (options.grantId !== undefined && r.act?.actor_sig !== undefined && actorKey !== undefined) r.act = signAct(r.act, actorKey, options.grantId);
    const approver = r.approval === undefined ? undefined : byRef.get(r.approval.kid);
    if (options.resignApproval === true && approver !== undefined) r.approval = approveAct(r.act, options.serviceId ?? r.iss, approver);
    const issuer = byRef.get(r.iss);
    if (issuer !== undefined && options.keepSig?.has(k) !== true) r = sealReceipt(r, issuer).receipt;
    out.push(r);
    const before = originalDigests[k];
    if (before !== undefined) renamed.set(before, digestOf(r));
  });
  return out;
}
