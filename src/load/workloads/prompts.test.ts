import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isHarnessError } from '../../errors.ts';
import { readPromptsFile } from './prompts.ts';
import { promptsWorkload } from './workload.ts';
import { bodies } from '../../../test-support/workload-bodies.ts';

describe('prompt files (--prompts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'iari-prompts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string): string => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  };

  it('reads messages lines and prompt lines, skipping blank lines', () => {
    const f = file('ok.jsonl', '{"prompt":"hi"}\n\n{"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}\r\n');
    expect(readPromptsFile(f)).toEqual([[{ role: 'user', content: 'hi' }], [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }]]);
  });

  it('names the line of a bad entry in a usage error (exit 2)', () => {
    const f = file('bad.jsonl', '{"prompt":"hi"}\n{"messages":[{"role":"robot","content":"x"}]}\n');
    let caught: unknown;
    try {
      readPromptsFile(f);
    } catch (error) {
      caught = error;
    }
    expect(isHarnessError(caught) && caught.exitCode === 2).toBe(true);
    expect((caught as Error).message).toContain(':2:');
  });

  it('builds streamed bodies that ask for usage, cycling through the prompts from a seeded offset', () => {
    const body = bodies(promptsWorkload([[{ role: 'user', content: 'a' }], [{ role: 'user', content: 'b' }]], { model: 'm', maxTokens: 8, stream: true, seed: 1 }));
    const first = JSON.parse(body(0)) as { messages: { content: string }[]; stream_options: unknown; max_tokens: number };
    expect(first.messages[0]?.content).toBe('b');
    expect(first.stream_options).toEqual({ include_usage: true });
    expect(first.max_tokens).toBe(8);
    expect((JSON.parse(body(1)) as { messages: { content: string }[] }).messages[0]?.content).toBe('a');
  });
});
