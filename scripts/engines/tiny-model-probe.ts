import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureLlamaServer } from '../../test-support/engines/llama-server-build.ts';
import { startLlamaServer } from '../../test-support/engines/llama-server-process.ts';
import { writeTinyModel, type TinyModelVariant } from '../../test-support/engines/tiny-model.ts';
import { CHAT_COMPLETIONS_ROUTE } from '../../src/protocols/chat-completions/chat-request.ts';

// `npx tsx scripts/engines/tiny-model-probe.ts [designed|random] [N]`: writes the tiny model,
// starts llama-server on it and prints what it does: answer lengths and finish reasons of plain
// chats (temperature 0 and 0.8, one and three turns) and whether a call starts when tools are
// offered (auto, required, none, and after a tool result). The figures in docs/engines.md come
// from it.

const WEATHER = { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

interface Choice {
  finish_reason: string;
  message: { content: string | null; tool_calls?: { function: { name: string; arguments: string } }[] };
}

async function chat(url: string, body: Record<string, unknown>): Promise<{ choice: Choice; tokens: number }> {
  const response = await fetch(`${url}${CHAT_COMPLETIONS_ROUTE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tiny-qwen2', max_tokens: 200, ...body }),
    signal: AbortSignal.timeout(120_000),
  });
  const json = (await response.json()) as { choices: Choice[]; usage: { completion_tokens: number } };
  if (json.choices?.[0] === undefined) throw new Error(`${response.status} ${JSON.stringify(json)}`);
  return { choice: json.choices[0], tokens: json.usage.completion_tokens };
}

async function probe(variant: TinyModelVariant, n: number): Promise<void> {
  const build = await ensureLlamaServer({ say: (line) => console.error(`llama-server: ${line}`) });
  const dir = mkdtempSync(join(tmpdir(), 'iari-tiny-model-'));
  const model = join(dir, `tiny-${variant}.gguf`);
  writeTinyModel(model, { vocabPath: build.vocabPath, templatePath: build.templatePath, variant });
  const server = await startLlamaServer({ binary: build.binary, libDir: build.binDir, model });
  try {
    const user = { role: 'user', content: 'What is the weather like?' };
    for (const temperature of [0, 0.8]) {
      const lengths: string[] = [];
      for (let i = 0; i < n; i++) {
        const { choice, tokens } = await chat(server.url, { messages: [user], temperature, seed: i });
        lengths.push(`${tokens}${choice.finish_reason === 'stop' ? '' : `(${choice.finish_reason})`}`);
        if (i === 0) console.log(`temperature ${temperature}: ${JSON.stringify(choice.message.content)}`);
      }
      console.log(`plain, temperature ${temperature}: completion tokens ${lengths.join(' ')}`);
    }
    const first = await chat(server.url, { messages: [user], temperature: 0.8 });
    const third = await chat(server.url, {
      messages: [user, { role: 'assistant', content: first.choice.message.content }, { role: 'user', content: 'And tomorrow?' }, { role: 'assistant', content: first.choice.message.content }, user],
      temperature: 0.8,
    });
    console.log(`third turn: ${third.tokens} tokens, ${third.choice.finish_reason}`);
    for (const tool_choice of ['auto', 'required', 'none', { type: 'function', function: { name: 'get_weather' } }]) {
      const outcomes: string[] = [];
      for (let i = 0; i < Math.min(n, 4); i++) {
        const { choice, tokens } = await chat(server.url, { messages: [user], tools: [WEATHER], tool_choice, temperature: 0.8, seed: i });
        outcomes.push(`${choice.message.tool_calls?.length ?? 0} call(s) ${tokens} tok ${choice.finish_reason}`);
        if (i === 0) console.log(`  ${JSON.stringify(choice.message)}`);
      }
      console.log(`tools, tool_choice ${JSON.stringify(tool_choice)}: ${outcomes.join('; ')}`);
    }
    const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
    const after = await chat(server.url, {
      messages: [user, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 21}' }],
      tools: [WEATHER],
      temperature: 0.8,
    });
    console.log(`after a tool result: ${after.choice.message.tool_calls?.length ?? 0} call(s), ${after.tokens} tokens, ${after.choice.finish_reason}: ${JSON.stringify(after.choice.message.content)}`);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const variant = process.argv[2] === 'random' ? 'random' : 'designed';
  probe(variant, Number(process.argv[3] ?? 8)).catch((error: unknown) => {
    console.error((error as Error).message);
    process.exitCode = 1;
  });
}
