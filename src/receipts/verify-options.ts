import { decodeKeyref } from './keyref.ts';
import type { StrictJsonLimits } from './strict-json.ts';

export interface ReceiptPayloads {
  /** The request body the act's input_digest must cover (D-RCPT-13). */
  input?: unknown;
  /** The assembled assistant message(s) the outcome's output_digest must cover. */
  output?: unknown;
  /** The Context Envelope the Receipt's context must cover. */
  context?: unknown;
}

export interface VerifyOptions {
  /** Conformance level 1 (default), 2 or 3 (D-RCPT-20). */
  level?: 1 | 2 | 3;
  /** Trusted issuer keyrefs; without them every issuer is reported ISSUER_UNTRUSTED. */
  trustedIssuers?: readonly string[];
  /** Approver keyrefs for stop.approve approvals. */
  approvers?: readonly string[];
  /** The Mandate's grant id, for actor_sig (D-RCPT-19). */
  grantId?: string;
  /** The service identifier approvals are over; default each Receipt's iss (D-RCPT-06). */
  serviceId?: string;
  /** Expected head digest; without it tail truncation is undetectable. */
  expectedHead?: string;
  /** Accepted token commitments (D-RCPT-10). */
  tokenCommitments?: readonly string[];
  /** Payloads to check input_digest, output_digest and context against. */
  payloads?: (index: number, id: string | undefined) => ReceiptPayloads | undefined;
  /** Require the wire text of each Receipt to be its JCS form. */
  strictWire?: boolean;
  /** The verifier's clock, integer seconds (default: now). */
  now?: number;
  /** D-RCPT-08: IAT_FUTURE is an error instead of a warning (the verdict then depends on this clock). */
  strictClock?: boolean;
  /** Allowed clock skew for IAT_FUTURE, seconds (default 300). */
  maxSkewSeconds?: number;
  /** At most this many findings are kept (default 1000); the rest are counted. */
  maxFindings?: number;
  limits?: StrictJsonLimits;
}

/** Why the verifier refuses its options before reading any Receipt (D-RCPT-21): a closed set. */
export type VerifyOptionsErrorCode = 'TRUSTED_KEY_INVALID' | 'APPROVER_KEY_INVALID';

export type VerifyOptionsCheck = { ok: true } | { ok: false; code: VerifyOptionsErrorCode; key: string; detail: string };

/** Thrown by the verifier (ChainVerifier, verifyChain, verifyReceipt*) for options it refuses. */
export class VerifyOptionsError extends Error {
  override readonly name = 'VerifyOptionsError';
  constructor(
    readonly code: VerifyOptionsErrorCode,
    readonly key: string,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * D-RCPT-21: "Keys given to the verifier are checked before any Receipt is read, by the rules of
 * D-RCPT-03; a key that fails them is refused (exit 2), not a finding."
 */
export function checkVerifyOptions(options: Pick<VerifyOptions, 'trustedIssuers' | 'approvers'>): VerifyOptionsCheck {
  const lists: [readonly string[] | undefined, VerifyOptionsErrorCode, string][] = [
    [options.trustedIssuers, 'TRUSTED_KEY_INVALID', 'trusted issuer key'],
    [options.approvers, 'APPROVER_KEY_INVALID', 'approver key'],
  ];
  for (const [keys, code, what] of lists) {
    for (const key of keys ?? []) {
      const d = decodeKeyref(key);
      if (!d.ok) return { ok: false, code, key, detail: `${what} ${JSON.stringify(key)}: ${d.reason}` };
    }
  }
  return { ok: true };
}
