/**
 * JUnit XML (the dialect CI systems read: testsuites > testsuite > testcase with failure,
 * error or skipped children). One testcase per requirement, named by its ID.
 */

/** Characters XML 1.0 does not allow at all (C0 controls except tab, LF, CR; lone surrogates; U+FFFE/F). */
const invalidXmlChars = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Escapes text for XML content or a double-quoted attribute; invalid characters become U+FFFD. */
export function escapeXml(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  return text.replace(invalidXmlChars, '\uFFFD').replace(/[&<>"']/g, (c) => xmlEscapes[c] ?? c);
}

const xmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
// Attributes normalise whitespace, so line breaks and tabs in attributes are written as references.
const attrEscapes: Record<string, string> = { ...xmlEscapes, '\r': '&#13;', '\n': '&#10;', '\t': '&#9;' };

export function escapeXmlAttr(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  return text.replace(invalidXmlChars, '\uFFFD').replace(/[&<>"'\r\n\t]/g, (c) => attrEscapes[c] ?? c);
}

function escapeText(value: string): string {
  return value.replace(invalidXmlChars, '\uFFFD').replace(/[&<>]/g, (c) => xmlEscapes[c] ?? c);
}

export type JUnitOutcome =
  | { kind: 'passed' }
  | { kind: 'failure'; message: string; type?: string; details?: string }
  | { kind: 'error'; message: string; type?: string; details?: string }
  | { kind: 'skipped'; message: string };

export interface JUnitCase {
  name: string;
  classname: string;
  timeSeconds: number;
  outcome: JUnitOutcome;
  properties?: Record<string, string>;
  systemOut?: string;
}

export interface JUnitSuite {
  name: string;
  timestamp?: string;
  hostname?: string;
  cases: readonly JUnitCase[];
}

function seconds(value: number): string {
  return (Number.isFinite(value) && value > 0 ? value : 0).toFixed(3);
}

function count(cases: readonly JUnitCase[]) {
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  let time = 0;
  for (const c of cases) {
    if (c.outcome.kind === 'failure') failures++;
    else if (c.outcome.kind === 'error') errors++;
    else if (c.outcome.kind === 'skipped') skipped++;
    time += Number.isFinite(c.timeSeconds) && c.timeSeconds > 0 ? c.timeSeconds : 0;
  }
  return { tests: cases.length, failures, errors, skipped, time };
}

function renderCase(c: JUnitCase): string {
  const open = `    <testcase name="${escapeXmlAttr(c.name)}" classname="${escapeXmlAttr(c.classname)}" time="${seconds(c.timeSeconds)}"`;
  const inner: string[] = [];
  const props = Object.entries(c.properties ?? {});
  if (props.length > 0) {
    inner.push('      <properties>');
    for (const [k, v] of props) inner.push(`        <property name="${escapeXmlAttr(k)}" value="${escapeXmlAttr(v)}"/>`);
    inner.push('      </properties>');
  }
  const o = c.outcome;
  if (o.kind === 'failure' || o.kind === 'error') {
    const type = o.type === undefined ? '' : ` type="${escapeXmlAttr(o.type)}"`;
    inner.push(`      <${o.kind} message="${escapeXmlAttr(o.message)}"${type}>${escapeText(o.details ?? o.message)}</${o.kind}>`);
  } else if (o.kind === 'skipped') {
    inner.push(`      <skipped message="${escapeXmlAttr(o.message)}"/>`);
  }
  if (c.systemOut !== undefined) inner.push(`      <system-out>${escapeText(c.systemOut)}</system-out>`);
  return inner.length === 0 ? `${open}/>` : `${open}>\n${inner.join('\n')}\n    </testcase>`;
}

export function junitXml(name: string, suites: readonly JUnitSuite[]): string {
  const totals = count(suites.flatMap((s) => s.cases));
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXmlAttr(name)}" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" skipped="${totals.skipped}" time="${seconds(totals.time)}">`,
  ];
  for (const s of suites) {
    const t = count(s.cases);
    const attrs = [
      `name="${escapeXmlAttr(s.name)}"`,
      `tests="${t.tests}"`,
      `failures="${t.failures}"`,
      `errors="${t.errors}"`,
      `skipped="${t.skipped}"`,
      `time="${seconds(t.time)}"`,
      ...(s.timestamp === undefined ? [] : [`timestamp="${escapeXmlAttr(s.timestamp)}"`]),
      ...(s.hostname === undefined ? [] : [`hostname="${escapeXmlAttr(s.hostname)}"`]),
    ];
    if (s.cases.length === 0) {
      lines.push(`  <testsuite ${attrs.join(' ')}/>`);
      continue;
    }
    lines.push(`  <testsuite ${attrs.join(' ')}>`);
    for (const c of s.cases) lines.push(renderCase(c));
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
