// The seam between the mock core and the receipt issuer (owned by the mock-extras engineer).
// The core calls `gate` for every authenticated chat request that passes validation, before it
// answers, and sets `x-receipt-gate` to the returned digest; it calls `outcome` when an allowed
// completion ends. `chain` serves `GET /v1/receipts`, `keys` serves `GET /v1/receipts/keys`.

export type GateDecision =
  | { result: 'allowed' }
  | { result: 'denied'; reason: string; subcode?: string; prose?: string };

export interface GateInput {
  account: string;
  requestId: string;
  model: string;
  resource: string;
  /** The parsed request body. */
  inputDigestOf: unknown;
  decision: GateDecision;
  /** Canonical decimal string, e.g. "0.000123". */
  estimatedCostUsd: string;
  faults: ReadonlySet<string>;
}

export type OutcomeStatus = 'ok' | 'failed' | 'interrupted';

export interface OutcomeInput {
  account: string;
  gateDigest: string;
  status: OutcomeStatus;
  /** The assembled assistant message(s) actually sent. */
  output: unknown;
  resolved: { provider: string; model: string; boundary: string[] } | null;
  /** Canonical decimal string. */
  costUsd: string;
  faults: ReadonlySet<string>;
}

export interface ReceiptChainView {
  mandate: { id: string; grant_id: string; actor: string };
  head: string | null;
  /** How many older Receipts of the chain are not listed (beyond the issuer's retention window); absent when none. */
  omitted?: number;
  data: unknown[];
}

export interface ReceiptKeysView {
  object: 'receipt_keys';
  service_id: string;
  keys: { kid: string; alg: 'Ed25519'; use: 'issuer' }[];
}

export interface ReceiptIssuer {
  gate(input: GateInput): { gateDigest: string };
  outcome(input: OutcomeInput): void;
  chain(account: string): ReceiptChainView;
  /** Optional: the body of GET /v1/receipts as JSON text, the same bytes as JSON.stringify({ object: 'list', ...chain(account) }). */
  chainJson?(account: string): string;
  /** `faults` are the request's active faults (receipt faults may change the published keys). */
  keys(faults?: ReadonlySet<string>): ReceiptKeysView;
}
