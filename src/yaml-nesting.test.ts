import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { flowNestedTooDeeply, MAX_FLOW_NESTING } from './yaml-nesting.ts';

describe('flow nesting before the yaml parser', () => {
  it('refuses deep unclosed flow collections, the fuzz pass finding, in one pass', () => {
    expect(flowNestedTooDeeply('{'.repeat(30_000))).toBe(true);
    expect(flowNestedTooDeeply('{"workload":[{"kind"ad":[' + '{"kiind"ad":[{"kiind"ad":['.repeat(1_400))).toBe(true);
    expect(flowNestedTooDeeply('['.repeat(MAX_FLOW_NESTING + 1))).toBe(true);
  });

  it('lets a file through at the limit, and counts closed collections out', () => {
    expect(flowNestedTooDeeply('['.repeat(MAX_FLOW_NESTING) + ']'.repeat(MAX_FLOW_NESTING))).toBe(false);
    expect(flowNestedTooDeeply('[[1]],'.repeat(10_000))).toBe(false);
  });

  it('does not count brackets in quoted strings or comments, which YAML reads as text', () => {
    const brackets = '['.repeat(200);
    for (const text of [`prompt: "${brackets}"`, `prompt: '${brackets}'`, `a: 1 # ${brackets}\nb: 2`, `# ${brackets}`, `prompt: "a \\" ${brackets}"`]) {
      expect(flowNestedTooDeeply(text), text.slice(0, 30)).toBe(false);
      expect(parseDocument(text).errors).toEqual([]);
    }
  });

  it("does not take a plain scalar's apostrophe for a quote", () => {
    expect(flowNestedTooDeeply(`prompt: it's ${'['.repeat(100)}`)).toBe(true);
    expect(flowNestedTooDeeply(`prompt: it's fine\nrun: {duration: 10s}`)).toBe(false);
  });
});
