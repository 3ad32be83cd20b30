// Public API of the receipt library (signer, chain builder, verifier, digest).
export { canonicalBytes, canonicalString, CanonicalizationError } from './canonical.ts';
export { digestOf, digestOfBytes, tokenCommitment, DIGEST_PATTERN } from './digest.ts';
export { decodeBase64url, encodeBase64url } from './base64url.ts';
export { Ed25519Key, generateKey } from './signing-key.ts';
export { verifyEd25519, checkPublicKey, isSmallOrderEncoding } from './ed25519.ts';
export { keyrefOf, decodeKeyref, KEYREF_PATTERN } from './keyref.ts';
export { pae, PAYLOAD_TYPE, PROTO, receiptSigInput, actorSigInput, approvalSigInput, actDigestOf } from './pae.ts';
export { sealReceipt, signAct, approveAct } from './seal.ts';
export { ChainBuilder } from './chain-builder.ts';
export type { ChainBuilderOptions, ConformanceLevel, GateInput, OutcomeInput } from './chain-builder.ts';
export { newReceiptId } from './receipt-id.ts';
export { validateReceiptSchema, receiptSchema } from './receipt-schema.ts';
export type { ReceiptSchemaError, ReceiptSchemaResult } from './receipt-schema.ts';
export type { Act, Budget, Decision, Outcome, Receipt, Resolved, SealedReceipt, Sig, UnsignedReceipt } from './types.ts';
