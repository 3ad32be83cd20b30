import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockServer, type MockServer } from '../../../mock-server/index.ts';
import { createCheckContext } from '../context/check-context.ts';
import type { CheckContext } from '../context/check-types.ts';
import { CHAT_COMPLETIONS_PATH } from '../../protocols/chat-completions/chat-request.ts';
import { chatBody, modelUnderTest, weatherTool } from './common-requests.ts';
import { CHECK_TEXT_TOKENS, withOutputBound } from './output-bound.ts';
import { at } from '../kernel/evidence.ts';
import type { CheckDef } from '../context/check-types.ts';
import { runChecksInProcess } from '../runner/run-catalog.ts';

// A model that never ends on its own, served with a default cap of 1,024 tokens (issue 37).
let mock: MockServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0, modelCap: 1024, ttftMs: 0, itlMs: 0, jitterMs: 0, limits: false });
});
afterAll(() => mock.close());

function bounded(fault?: string): CheckContext {
  const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 1, target: 'external', includeLimits: false, ...(fault === undefined ? {} : { fault }) });
  ctx.http.useBodyDefaults((path, json) => withOutputBound(ctx, path, json));
  return ctx;
}

async function completionTokens(ctx: CheckContext, extra: Record<string, unknown> = {}): Promise<unknown> {
  const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), extra));
  return at(ex.json, 'usage', 'completion_tokens');
}

describe('issue 37 item 1: every check request bounds its output', () => {
  it('runChecksInProcess bounds the bodies of the checks it runs (suites that call it directly, not only iari test): 128 tokens, not the 1,024 cap', async () => {
    const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 1, target: 'external', includeLimits: false });
    const seen: unknown[] = [];
    const probe: CheckDef = {
      name: 'bound-probe',
      area: 'chat',
      ids: ['CHAT-001'],
      title: 'a chat body without a bound',
      async run(c, j) {
        const ex = await c.http.post(CHAT_COMPLETIONS_PATH, chatBody(c, await modelUnderTest(c), {}));
        seen.push(at(ex.json, 'usage', 'completion_tokens'));
        j.pass('CHAT-001');
      },
    };
    try {
      const { outcomes } = await runChecksInProcess(ctx, [probe]);
      expect(outcomes.get('CHAT-001')?.verdict).toBe('pass');
      expect(seen).toEqual([CHECK_TEXT_TOKENS]);
    } finally {
      await ctx.close();
    }
  });

  it('a chat body that names no bound gets the run\'s (128 tokens of text) where the server offers max_completion_tokens, so a model talking to its 1,024 cap costs 128', async () => {
    const ctx = bounded();
    try {
      expect(await completionTokens(ctx)).toBe(CHECK_TEXT_TOKENS);
      const plain = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 1, target: 'external', includeLimits: false });
      expect(await completionTokens(plain), 'without the defaults the model runs to the cap').toBe(1024);
      await plain.close();
    } finally {
      await ctx.close();
    }
  });

  it('a body that names its own bound keeps it; one with tools gets room for a whole call', async () => {
    const ctx = bounded();
    try {
      expect(await completionTokens(ctx, { max_tokens: 16 })).toBe(16);
      const tool = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, await modelUnderTest(ctx), { tools: [weatherTool], tool_choice: 'required' }));
      expect(at(tool.json, 'choices', 0, 'finish_reason')).toBe('tool_calls');
      expect(JSON.parse(String(at(tool.json, 'choices', 0, 'message', 'tool_calls', 0, 'function', 'arguments')))).toBeTypeOf('object');
    } finally {
      await ctx.close();
    }
  });

  it('a server that ignores the bound (capability not offered) is sent none: the body is as before', async () => {
    const ctx = bounded('max-tokens-ignored');
    try {
      const sent = await withOutputBound(ctx, CHAT_COMPLETIONS_PATH, { model: 'm', messages: [] });
      expect(sent).toEqual({ model: 'm', messages: [] });
    } finally {
      await ctx.close();
    }
  });

  it('the mock\'s model cap stops at the request\'s bound as a real server does, and at the cap without one', async () => {
    const ctx = createCheckContext({ root: mock.origin, token: mock.tokens.default, seed: 1, target: 'external', includeLimits: false });
    try {
      const model = await modelUnderTest(ctx);
      for (const [extra, tokens] of [[{ max_completion_tokens: 40 }, 40], [{ max_tokens: 7, stream: false }, 7], [{}, 1024]] as const) {
        const ex = await ctx.http.post(CHAT_COMPLETIONS_PATH, chatBody(ctx, model, extra));
        expect(at(ex.json, 'usage', 'completion_tokens')).toBe(tokens);
        expect(at(ex.json, 'choices', 0, 'finish_reason')).toBe('length');
      }
    } finally {
      await ctx.close();
    }
  });
});
