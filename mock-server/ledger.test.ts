import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestOf, verifyChain, type Receipt } from '../src/receipts/index.ts';
import { createReceiptIssuer } from './receipt-issuer.ts';
import { openReceiptLedger, readLedger, type LedgerRecord } from './receipt-ledger.ts';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iari-ledger-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function record(i: number): LedgerRecord {
  return { account: 'acct_a', mandate: 'mnd_a', receipt: { id: `r${i}`, text: 'héllo ✓' } };
}

describe('receipt ledger', () => {
  it('reads back every appended line in order after a reopen', () => {
    const file = path.join(dir, 'l.jsonl');
    const first = openReceiptLedger(file);
    for (let i = 0; i < 5; i++) first.append(record(i));
    first.close();
    const second = openReceiptLedger(file);
    expect(second.recovered.map((e) => e.receipt['id'])).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(second.recovery).toBeNull();
    second.append(record(5));
    second.close();
    expect(readLedger(file).entries).toHaveLength(6);
  });

  it('writes each line to the file before append returns', () => {
    const file = path.join(dir, 'l.jsonl');
    const ledger = openReceiptLedger(file);
    ledger.append(record(0));
    // Another reader sees the line while the writer is still open.
    expect(fs.readFileSync(file, 'utf8')).toBe(`${JSON.stringify(record(0))}\n`);
    ledger.close();
  });

  it('cuts a torn last line without a newline and warns with its byte offset', () => {
    const file = path.join(dir, 'l.jsonl');
    const ledger = openReceiptLedger(file);
    ledger.append(record(0));
    ledger.append(record(1));
    ledger.close();
    const goodLength = fs.statSync(file).size;
    fs.appendFileSync(file, JSON.stringify(record(2)).slice(0, 17));
    const warnings: string[] = [];
    const reopened = openReceiptLedger(file, { onWarning: (m) => warnings.push(m) });
    expect(reopened.recovery).toEqual({ offset: goodLength, bytes: 17, reason: 'no-trailing-newline' });
    expect(warnings.join('\n')).toContain(`byte offset ${goodLength}`);
    expect(reopened.recovered).toHaveLength(2);
    expect(fs.statSync(file).size).toBe(goodLength);
    reopened.append(record(3));
    reopened.close();
    expect(readLedger(file).entries.map((e) => e.receipt['id'])).toEqual(['r0', 'r1', 'r3']);
  });

  it('cuts an unparsable newline-terminated last line (zero-filled blocks after a crash)', () => {
    const file = path.join(dir, 'l.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(record(0))}\n\0\0\0\0\n`);
    const warnings: string[] = [];
    const ledger = openReceiptLedger(file, { onWarning: (m) => warnings.push(m) });
    const offset = Buffer.byteLength(`${JSON.stringify(record(0))}\n`);
    expect(ledger.recovery).toEqual({ offset, bytes: 5, reason: 'unparsable' });
    expect(warnings).toHaveLength(1);
    ledger.close();
  });

  it('refuses a ledger whose corrupt line is followed by complete lines instead of dropping receipts', () => {
    const file = path.join(dir, 'l.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(record(0))}\n{"account":\n${JSON.stringify(record(2))}\n`);
    expect(() => openReceiptLedger(file, { onWarning: () => {} })).toThrow(/byte offset \d+ is not a ledger record/);
    expect(fs.readFileSync(file, 'utf8')).toContain('{"account":\n');
  });

  it('refuses a second writer while the first holds the ledger', () => {
    const file = path.join(dir, 'l.jsonl');
    const first = openReceiptLedger(file);
    expect(() => openReceiptLedger(file)).toThrow(/in use by process/);
    first.close();
    openReceiptLedger(file).close();
  });

  it('takes over a lock left by a process that no longer exists', () => {
    const file = path.join(dir, 'l.jsonl');
    fs.writeFileSync(`${file}.lock`, '999999999');
    const warnings: string[] = [];
    const ledger = openReceiptLedger(file, { onWarning: (m) => warnings.push(m) });
    expect(warnings[0]).toContain('stale lock');
    ledger.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('supports the fdatasync mode with the same on-disk format', () => {
    const file = path.join(dir, 'l.jsonl');
    const ledger = openReceiptLedger(file, { sync: 'fdatasync' });
    ledger.append(record(0));
    ledger.close();
    expect(readLedger(file).entries[0]?.receipt).toEqual(record(0).receipt);
  });
});

const CHILD = fileURLToPath(new URL('../test-support/receipt-ledger-child.ts', import.meta.url));

const TOKEN = 'sk-iari-crash-test-token-0001';

/** Starts the crash child, sends it chat requests (8 at a time, streamed and not) until `atLeast`
 * responses were read completely, then SIGKILLs it mid-traffic. Returns their x-receipt-gate digests. */
async function crashChild(ledger: string, seed: number, atLeast: number): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ledger, String(seed)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, IARI_TOKEN: TOKEN },
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
  let url = '';
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith('ready ')) {
      url = line.slice('ready '.length);
      break;
    }
  }
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  const finished: string[] = [];
  let killed = false;
  // Stop sending if the child dies by itself (the test then fails on its exit signal).
  child.once('exit', () => {
    killed = true;
  });
  let n = 0;
  const worker = async () => {
    while (!killed) {
      const stream = n++ % 2 === 0;
      try {
        const response = await fetch(`${url}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'iari-mini', messages: [{ role: 'user', content: `request ${n}` }], stream }),
          signal: AbortSignal.timeout(10_000),
        });
        const text = await response.text();
        const gate = response.headers.get('x-receipt-gate');
        if (response.status === 200 && gate !== null && (stream ? text.endsWith('data: [DONE]\n\n') : text.endsWith('}'))) finished.push(gate);
      } catch {
        // The kill cuts the requests in flight.
      }
      if (finished.length >= atLeast && !killed) {
        killed = true;
        child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const signal = await exited;
  clearTimeout(guard);
  expect(signal).toBe('SIGKILL');
  return finished;
}

describe('receipt ledger across a crash', () => {
  it('keeps every receipt of a finished response through SIGKILL during writes, cuts a torn tail on restart and verifies the chain', async () => {
    const file = path.join(dir, 'crash.jsonl');
    const finished = await crashChild(file, 31, 60);
    expect(finished.length).toBeGreaterThanOrEqual(60);
    const linesAtKill = readLedger(file).entries.length;
    // A power cut can also leave half a line: add one, as the torn write the restart must cut. The
    // SIGKILL may itself have cut a line short: the torn tail then starts where that line does.
    const tornAt = fs.readFileSync(file).lastIndexOf(0x0a) + 1;
    fs.appendFileSync(file, '{"account":"acct_dev","mandate":"mnd_');

    const warnings: string[] = [];
    const issuer = createReceiptIssuer({ ledger: file, seed: 31, onWarning: (m) => warnings.push(m) });
    try {
      expect(warnings.some((w) => w.includes(`torn last line at byte offset ${tornAt}`))).toBe(true);
      const chain = issuer.chain('acct_dev');
      const receipts = chain.data as Receipt[];
      const result = verifyChain(receipts, { trustedIssuers: [issuer.issuerKeyref], ...(chain.head === null ? {} : { expectedHead: chain.head }) });
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);

      // No receipt of a finished response is lost: its gate and its "ok" outcome are both there.
      const byDigest = new Map(receipts.map((r) => [digestOf(r), r]));
      const outcomes = new Map(receipts.filter((r) => r.gate !== undefined).map((r) => [r.gate as string, r]));
      for (const gate of finished) {
        expect(byDigest.get(gate)?.decision.result).toBe('allowed');
        expect(outcomes.get(gate)?.outcome?.status).toBe('ok');
      }
      // Every gate is paired: the ones the crash left open were closed as interrupted on restart.
      const gates = receipts.filter((r) => r.outcome === undefined).length;
      expect(outcomes.size).toBe(gates);
      const closedOnRestart = receipts.length - linesAtKill;
      expect(receipts.filter((r) => r.outcome?.status === 'interrupted')).toHaveLength(closedOnRestart);
      expect(readLedger(file).entries).toHaveLength(receipts.length);
    } finally {
      issuer.close();
    }
  }, 60_000);
});
