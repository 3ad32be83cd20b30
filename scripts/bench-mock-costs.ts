// The in-process side of scripts/bench-mock.ts: what a durable ledger append costs, what the
// Receipts of one completion cost (and one Ed25519 signature of them), the hottest files of a CPU
// profile, and the floor the 0.5 target is judged against.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REQUEST = { model: 'iari-mini', messages: [{ role: 'user', content: 'Benchmark me.' }] };

export async function ledgerAppendCost(): Promise<Record<string, number>> {
  const { openReceiptLedger } = await import('../mock-server/receipt-ledger.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iari-bench-ledger-'));
  const receipt = { proto: '1.0-draft.2', type: 'receipt', id: 'rcpt_x', pad: 'x'.repeat(800) };
  const result: Record<string, number> = {};
  try {
    for (const mode of ['dsync', 'fdatasync', 'dsync', 'fdatasync'] as const) {
      const ledger = openReceiptLedger(path.join(dir, `${mode}.jsonl`), { sync: mode, onWarning: () => {} });
      const n = 1000;
      const t = performance.now();
      for (let i = 0; i < n; i++) ledger.append({ account: 'acct_bench', mandate: 'mnd_bench', receipt });
      const us = ((performance.now() - t) * 1000) / n;
      ledger.close();
      result[`${mode}_us_per_append`] = Math.round(Math.min(result[`${mode}_us_per_append`] ?? Infinity, us) * 10) / 10;
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

/** In-process cost of the receipts of one completion (gate + outcome) and of one Ed25519 signature. */
export async function receiptCost(): Promise<{ gateAndOutcomeUs: number; ed25519SignUs: number }> {
  const { createReceiptIssuer } = await import('../mock-server/receipt-issuer.ts');
  const { Ed25519Key, canonicalBytes } = await import('../src/receipts/index.ts');
  const issuer = createReceiptIssuer({ seed: 1 });
  const faults = new Set<string>();
  const output = [{ role: 'assistant', content: 'x'.repeat(150) }];
  const completion = () => {
    const { gateDigest } = issuer.gate({ account: 'acct_bench', requestId: 'req_bench', model: 'iari-mini', resource: 'model:iari-mini', inputDigestOf: REQUEST, decision: { result: 'allowed' }, estimatedCostUsd: '0.00001', faults });
    issuer.outcome({ account: 'acct_bench', gateDigest, status: 'ok', output, resolved: { provider: 'iari-mock', model: 'iari-mini', boundary: ['account:acct_bench'] }, costUsd: '0.00001', faults });
  };
  const key = Ed25519Key.fromSeed(new Uint8Array(32));
  const message = canonicalBytes(issuer.chain('acct_bench').data[0] ?? REQUEST);
  // The fastest of 5 batches: these are lower bounds (the floor), so the least disturbed batch counts.
  const time = (fn: () => void): number => {
    for (let i = 0; i < 300; i++) fn();
    const n = 400;
    let best = Infinity;
    for (let batch = 0; batch < 5; batch++) {
      const t = performance.now();
      for (let i = 0; i < n; i++) fn();
      best = Math.min(best, (performance.now() - t) / n);
    }
    return Math.round(best * 10_000) / 10;
  };
  completion();
  const result = { gateAndOutcomeUs: time(completion), ed25519SignUs: time(() => key.sign(message)) };
  issuer.close();
  return result;
}

export function hottestFiles(profileDir: string): { file: string; selfPercent: number }[] {
  const files = fs.readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
  const self = new Map<string, number>();
  let total = 0;
  for (const f of files) {
    const profile = JSON.parse(fs.readFileSync(path.join(profileDir, f), 'utf8')) as { nodes: { callFrame: { url: string; functionName: string }; hitCount?: number }[] };
    for (const node of profile.nodes) {
      // Percentages of the time the mock was busy: idle samples are the other servers' turns.
      if (node.callFrame.functionName === '(idle)') continue;
      const hits = node.hitCount ?? 0;
      total += hits;
      const url = node.callFrame.url === '' ? `(${node.callFrame.functionName || 'native'})` : node.callFrame.url.replace(`file://${ROOT}/`, '');
      self.set(url, (self.get(url) ?? 0) + hits);
    }
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)
    .map(([file, hits]) => ({ file, selfPercent: Math.round((1000 * hits) / Math.max(1, total)) / 10 }));
}

/**
 * What the target needs, from lower bounds measured in this run: per request (or stream) at least
 * the client's CPU at its cheapest (the bare runs), the mock's CPU without receipts, and the
 * in-process cost of the two Receipts (of which the two Ed25519 signatures alone are irreducible).
 * More cores than the machine has means no design (threads included) reaches the target here;
 * a single-thread ratio under the target means a mock issuing Receipts on its one thread cannot.
 */
export function floorAt(bareRate: number, clientUs: number, mockNoReceiptsUs: number, receipts: { gateAndOutcomeUs: number; ed25519SignUs: number }) {
  const targetRate = 0.5 * bareRate;
  const signaturesUs = 2 * receipts.ed25519SignUs;
  const cores = (us: number) => Math.round((targetRate * (clientUs + mockNoReceiptsUs + us)) / 1e4) / 100;
  return {
    targetPerSecond: Math.round(targetRate),
    cpuUsAtLeast: { client: Math.round(clientUs), mockNoReceipts: Math.round(mockNoReceiptsUs), receipts: Math.round(receipts.gateAndOutcomeUs), signatures: Math.round(signaturesUs) },
    cores: os.cpus().length,
    coresNeeded: cores(receipts.gateAndOutcomeUs),
    coresNeededIfOnlySignaturesCost: cores(signaturesUs),
    singleThreadRatioAtMost: round3(1e6 / (mockNoReceiptsUs + receipts.gateAndOutcomeUs) / bareRate),
    singleThreadRatioAtMostIfOnlySignaturesCost: round3(1e6 / (mockNoReceiptsUs + signaturesUs) / bareRate),
  };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
