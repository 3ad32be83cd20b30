import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { annotation, emitAnnotations, escapeCommandData, escapeCommandProperty, isGitHubActions, markdownTable, writeStepSummary } from './github-actions.ts';

describe('github-actions', () => {
  it('escapes percent and line breaks in messages, and also colon and comma in properties', () => {
    expect(escapeCommandData('50% a\r\nb')).toBe('50%25 a%0D%0Ab');
    expect(escapeCommandProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
  });

  it('formats an error annotation with file and title', () => {
    expect(annotation({ level: 'error', file: 'spec/requirements.yaml', title: 'CHAT-STREAM-001', message: 'no [DONE]\nat byte 812' })).toBe(
      '::error file=spec/requirements.yaml,title=CHAT-STREAM-001::no [DONE]%0Aat byte 812',
    );
    expect(annotation({ level: 'warning', message: 'x' })).toBe('::warning::x');
    expect(annotation({ level: 'notice', title: 'a,b: c', line: 3, message: 'm' })).toBe('::notice line=3,title=a%2Cb%3A c::m');
  });

  it('emits one line per annotation, so a multi-line message cannot inject a second command', () => {
    const lines: string[] = [];
    emitAnnotations([{ level: 'error', message: 'x\n::error::injected' }], (l) => lines.push(l));
    expect(lines).toEqual(['::error::x%0A::error::injected\n']);
  });

  it('escapes pipes and line breaks in markdown table cells', () => {
    expect(markdownTable(['ID', 'message'], [['A-1', 'a|b\nc <x>']])).toBe('| ID | message |\n| --- | --- |\n| A-1 | a\\|b<br>c &lt;x> |');
  });

  it('appends the step summary only when GITHUB_STEP_SUMMARY is set', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'iari-gha-')), 'summary.md');
    expect(writeStepSummary('# one', {})).toBe(false);
    expect(writeStepSummary('# one', { GITHUB_STEP_SUMMARY: file })).toBe(true);
    expect(writeStepSummary('two\n', { GITHUB_STEP_SUMMARY: file })).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('# one\ntwo\n');
    expect(isGitHubActions({ GITHUB_ACTIONS: 'true' })).toBe(true);
    expect(isGitHubActions({})).toBe(false);
  });
});
