/** A Sig object (D-RCPT-04). */
export interface Sig {
  alg: 'Ed25519';
  kid: string;
  val: string;
}

export interface Budget {
  amount: string;
  unit: string;
}

export interface Act {
  verb: string;
  resource: string;
  input_digest?: string;
  actor_sig?: Sig;
}

export interface Decision {
  result: 'allowed' | 'denied';
  reason?: string;
  subcode?: string;
  prose?: string;
  'the service'?: string;
  crit_object?: { object: string; path: string };
}

export interface Resolved {
  provider: string;
  model: string;
  boundary: string[];
}

export interface Outcome {
  status: 'ok' | 'failed' | 'interrupted';
  effects?: string[];
  output_digest?: string;
  resolved?: Resolved | null;
}

export interface UnsignedReceipt {
  proto: '1.0-draft.2';
  type: 'receipt';
  id: string;
  iss: string;
  iat: number;
  prev?: string;
  actor: string;
  act: Act;
  context?: string;
  approval?: Sig;
  token?: string;
  decision: Decision;
  gate?: string;
  outcome?: Outcome;
  cost: Budget;
}

export interface Receipt extends UnsignedReceipt {
  sig: Sig;
}

export interface SealedReceipt {
  receipt: Receipt;
  /** digest of the JCS of the whole receipt, sig included: the next Receipt's prev. */
  digest: string;
}
