import { readFileSync } from 'node:fs';
import { HarnessError, HarnessErrorCode } from '../../errors.ts';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
}

/** A small built-in mix: short and long prompts, with and without a system message. */
export const builtinPrompts: readonly ChatMessage[][] = [
  [{ role: 'user', content: 'Say hello in one short sentence.' }],
  [{ role: 'user', content: 'Explain what a hash chain is, in three sentences.' }],
  [
    { role: 'system', content: 'You are a concise assistant.' },
    { role: 'user', content: 'List five prime numbers and say why each is prime.' },
  ],
  [{ role: 'user', content: 'Write a haiku about latency.' }],
  [
    { role: 'system', content: 'Answer as a careful performance engineer.' },
    { role: 'user', content: 'Why does measuring latency from the actual send time hide server stalls under a fixed arrival rate? Give an example with numbers.' },
  ],
  [{ role: 'user', content: 'Summarise the plot of a detective story in one paragraph.' }],
  [{ role: 'user', content: 'Translate "good morning, how are you?" into French, Spanish and German.' }],
  [{ role: 'user', content: 'Give me a checklist for reviewing a pull request.' }],
];

const roles = new Set(['system', 'user', 'assistant', 'tool']);

/**
 * Reads a JSONL prompt file: one object per line, either `{"messages":[{role,content}...]}` or
 * `{"prompt":"text"}`. Blank lines are skipped; anything else is a usage error with its line number.
 */
export function readPromptsFile(file: string): ChatMessage[][] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `--prompts ${file}: ${(error as Error).message}`);
  }
  const out: ChatMessage[][] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (line === '') continue;
    const bad = (why: string): never => {
      throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `--prompts ${file}:${i + 1}: ${why}`, { hint: 'each line: {"messages":[{"role":"user","content":"..."}]} or {"prompt":"..."}' });
    };
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return bad('not JSON');
    }
    out.push(parsePromptLine(v, (why) => bad(why)));
  }
  if (out.length === 0) throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `--prompts ${file}: no prompts in the file`);
  return out;
}

/** One prompt line's messages: `{"messages":[...]}` or `{"prompt":"text"}`; `bad` raises the caller's error. */
export function parsePromptLine(v: unknown, bad: (why: string) => Error): ChatMessage[] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('not a JSON object');
  const o = v as { messages?: unknown; prompt?: unknown };
  if (typeof o.prompt === 'string' && o.prompt.length > 0) return [{ role: 'user', content: o.prompt }];
  if (!Array.isArray(o.messages) || o.messages.length === 0) throw bad('needs a non-empty "messages" array or a "prompt" string');
  const msgs: ChatMessage[] = [];
  for (const [j, m] of (o.messages as unknown[]).entries()) {
    const mm = m as { role?: unknown; content?: unknown };
    if (typeof mm?.role !== 'string' || !roles.has(mm.role)) throw bad(`messages[${j}].role must be system, user, assistant or tool`);
    if (typeof mm.content !== 'string') throw bad(`messages[${j}].content must be a string`);
    msgs.push({ role: mm.role as ChatMessage['role'], content: mm.content });
  }
  return msgs;
}
