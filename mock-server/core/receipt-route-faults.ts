import type { FaultDefinition } from './fault-catalogue.ts';

// Receipt faults decided by the core's routing, authentication and validation rather than by the
// receipt issuer (handler.ts, chat.ts). Each changes exactly one behaviour of the receipts extension.

export const receiptRouteFaults: readonly FaultDefinition[] = [
  { name: 'receipt-keys-status-203', kind: 'fault', breaks: ['RCPT-HTTP-001'], description: 'GET /v1/receipts/keys answers the keys document with status 203 instead of 200.' },
  { name: 'receipt-list-public', kind: 'fault', breaks: ['RCPT-HTTP-003'], description: "GET /v1/receipts without credentials answers 200 with the default account's chain instead of 401." },
  { name: 'receipt-gate-unknown-model', kind: 'fault', breaks: ['RCPT-HTTP-013'], description: 'A chat request for an unknown model appends an allowed gate and a failed outcome before it is answered 404.' },
];
