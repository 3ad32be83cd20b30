import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
