/**
 * GitHub Actions output: workflow commands (`::error file=...,title=...::message`) and the job
 * step summary (markdown appended to the file named by $GITHUB_STEP_SUMMARY).
 */
import { appendFileSync } from 'node:fs';

type Env = Record<string, string | undefined>;

export function isGitHubActions(env: Env = process.env): boolean {
  return env['GITHUB_ACTIONS'] === 'true';
}

/** Escapes a workflow-command message (the part after `::`). */
export function escapeCommandData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a workflow-command property value (file, title ...): also `:` and `,`. */
export function escapeCommandProperty(value: string): string {
  return escapeCommandData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  message: string;
  title?: string;
  file?: string;
  line?: number;
  endLine?: number;
  col?: number;
}

export function annotation(a: Annotation): string {
  const props: string[] = [];
  if (a.file !== undefined) props.push(`file=${escapeCommandProperty(a.file)}`);
  if (a.line !== undefined) props.push(`line=${a.line}`);
  if (a.endLine !== undefined) props.push(`endLine=${a.endLine}`);
  if (a.col !== undefined) props.push(`col=${a.col}`);
  if (a.title !== undefined) props.push(`title=${escapeCommandProperty(a.title)}`);
  return `::${a.level}${props.length === 0 ? '' : ` ${props.join(',')}`}::${escapeCommandData(a.message)}`;
}

/** Writes annotations, one per line, to `write` (stdout by default). */
export function emitAnnotations(annotations: readonly Annotation[], write: (line: string) => void = (l) => process.stdout.write(l)): void {
  for (const a of annotations) write(`${annotation(a)}\n`);
}

/** Escapes a value for a markdown table cell: pipes, line breaks and HTML-significant `<`. */
export function markdownCell(value: string | number): string {
  return String(value).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/\r?\n|\r/g, '<br>');
}

export function markdownTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const head = `| ${headers.map(markdownCell).join(' | ')} |`;
  const rule = `| ${headers.map(() => '---').join(' | ')} |`;
  return [head, rule, ...rows.map((r) => `| ${r.map(markdownCell).join(' | ')} |`)].join('\n');
}

/** Appends markdown to the step summary; returns false when not running under Actions. */
export function writeStepSummary(markdown: string, env: Env = process.env): boolean {
  const file = env['GITHUB_STEP_SUMMARY'];
  if (file === undefined || file === '') return false;
  appendFileSync(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  return true;
}
