/**
 * `report.html` of `iari test`: summary, the account's usage heatmap (seed, Daily usage: "It holds
 * a day-by-day breakdown of activity, from which an overview heatmap is built."), failure details
 * with everything needed to reproduce them, the filterable requirement table, and coverage.
 */
import type { Failure, RequirementResult, Verdict } from '../checks/kernel/verdicts.ts';
import { verdicts } from '../checks/kernel/verdicts.ts';
import { noTokenHeadline, runOutcome } from '../checks/runner/conformance-results.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import { badge, factList, filterTable, html, renderPage, section, simpleTable, statGrid, type Html, type Row, type Tone } from './html-shell.ts';
import { usageSection } from './usage-html.ts';
import { CAPABILITY_HEADERS, capabilityOutcome } from './capability-table.ts';

export { usageTip } from './usage-html.ts';

export const verdictTone: Record<Verdict, Tone> = {
  pass: 'good',
  fail: 'bad',
  'non-strict': 'warn',
  informational: 'info',
  skipped: 'muted',
  known: 'muted',
  undecided: 'warn',
};

const gradeTone = { MUST: 'bad', SHOULD: 'warn', INFO: 'info' } as const;

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function show(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function anchor(id: string): string {
  return `fail-${id}`;
}

function detailText(r: RequirementResult): string {
  switch (r.verdict) {
    case 'fail':
    case 'non-strict':
      return r.failures[0]?.message ?? '';
    case 'informational':
      return r.note;
    case 'skipped':
      return r.reason;
    case 'undecided':
      return `undecided (${r.cause}): ${r.reason}`;
    case 'pass':
      return '';
    case 'known':
      return `known failure (${r.known.reason}${r.known.expires === undefined ? '' : `, until ${r.known.expires}`}): ${r.failures[0]?.message ?? ''}`;
  }
}

function verdictBar(summary: ConformanceReport['summary']): Html {
  const total = Math.max(1, summary.total);
  return html`<div class="vbar" role="img" aria-label="verdict proportions">${verdicts
    .filter((v) => summary[v] > 0)
    .map((v) => html`<span class="vseg tone-${verdictTone[v]}" style="width:${((100 * summary[v]) / total).toFixed(2)}%" data-tip="${`${v}: ${summary[v]} of ${summary.total}`}"></span>`)}</div>`;
}

function summarySection(report: ConformanceReport): Html {
  const s = report.summary;
  const mustFailed = report.results.filter((r) => r.verdict === 'fail' && r.grade === 'MUST').length;
  const outside = report.runFailures ?? [];
  const outcome = runOutcome(report);
  const undecided = s.undecided ?? 0;
  const undecidedText = undecided > 0 ? `${undecided} requirement${undecided === 1 ? '' : 's'} undecided (listed apart, not failed)` : '';
  const status =
    outcome === 'failed'
      ? html`<p class="status status-bad">FAILED: ${[s.fail > 0 ? `${s.fail} requirement${s.fail === 1 ? '' : 's'} failed${mustFailed > 0 ? ` (${mustFailed} MUST)` : ''}` : '', outside.length > 0 ? `${outside.length} failure${outside.length === 1 ? '' : 's'} outside the requirements` : '', undecidedText].filter((x) => x !== '').join('; ')}</p>${outside.length > 0 ? html`<ul class="run-failures">${outside.map((f) => html`<li>FAIL ${f}</li>`)}</ul>` : ''}`
      : outcome === 'undecided'
        ? html`<p class="status status-warn">NOT PASSED: no requirement failed; ${[undecidedText, report.run.noToken === 'implicit' ? noTokenHeadline(report) ?? '' : ''].filter((x) => x !== '').join('; ')}</p>`
        : html`<p class="status status-good">PASSED: no requirement failed${s['non-strict'] > 0 ? `; ${s['non-strict']} non-strict` : ''}${report.run.scope === 'openai' ? '; scope openai: the interface\'s extras were not judged, so this is not a pass of the interface' : ''}${report.run.noToken === 'accepted' ? `; ${noTokenHeadline(report) ?? ''}` : ''}</p>`;
  const run = report.run;
  const selection = [
    `grade ${run.grade}`,
    run.only.length > 0 ? `only ${run.only.join(', ')}` : '',
    run.skip.length > 0 ? `skip ${run.skip.join(', ')}` : '',
    run.scope === 'openai' ? "scope openai (the interface's extras not judged)" : '',
    run.include.length > 0 ? `include ${run.include.join(', ')}` : '',
  ].filter((x) => x !== '');
  return section(
    'Summary',
    html`${status}${statGrid([
      { label: 'requirements', value: s.total },
      { label: 'pass', value: s.pass, tone: 'good' },
      { label: 'fail', value: s.fail, tone: s.fail > 0 ? 'bad' : 'neutral' },
      { label: 'non-strict', value: s['non-strict'], tone: s['non-strict'] > 0 ? 'warn' : 'neutral' },
      { label: 'informational', value: s.informational, tone: 'info' },
      { label: 'skipped', value: s.skipped, tone: 'muted' },
    ])}${verdictBar(s)}${factList([
      ['target', `${run.baseUrl} (${run.target})`],
      ['started', run.startedAt],
      ['duration', duration(run.durationMs)],
      ['selection', selection.join('; ')],
      ['profile', run.profile === 'strict' ? 'strict: profile choices graded SHOULD' : 'default: profile choices graded INFO (--profile strict raises them to SHOULD)'],
      ['seed', String(run.seed)],
      ['run id', run.id],
      ['tool', `${report.tool.name} ${report.tool.version}`],
    ])}`,
    'summary',
  );
}

function areaSection(report: ConformanceReport): Html {
  const areas = [...new Set(report.results.map((r) => r.area))];
  const rows = areas.map((area) => {
    const of = report.results.filter((r) => r.area === area);
    const count = (v: Verdict) => of.filter((r) => r.verdict === v).length;
    return [
      html`<button type="button" class="linkish" data-set-filter="area" data-value="${area}">${area}</button>`,
      ...verdicts.map((v) => (count(v) === 0 ? html`<span class="muted">0</span>` : v === 'fail' ? badge(String(count(v)), 'bad') : String(count(v)))),
      String(of.length),
    ];
  });
  return section('By area', simpleTable(['area', ...verdicts, 'total'], rows, [1, 2, 3, 4, 5, 6]), 'areas');
}

function failureBlock(f: Failure, index: number, total: number): Html {
  const facts: [string, string | Html][] = [];
  if (f.expected !== undefined || f.received !== undefined) {
    facts.push([
      'expected / received',
      html`<div class="diff"><pre class="expected" aria-label="expected">${f.expected === undefined ? '(not recorded)' : show(f.expected)}</pre><pre class="received" aria-label="received">${f.received === undefined ? '(not recorded)' : show(f.received)}</pre></div>`,
    ]);
  }
  if (f.byteOffset !== undefined) facts.push(['byte offset', String(f.byteOffset)]);
  if (f.pointer !== undefined) facts.push(['pointer', f.pointer]);
  if (f.requestId !== undefined) facts.push(['x-request-id', f.requestId]);
  if (f.curl !== undefined) facts.push(['reproduce', html`<pre class="curl">${f.curl}</pre>`]);
  return html`<div class="failure">${total > 1 ? html`<div class="muted">finding ${index + 1} of ${total}</div>` : ''}<p class="message">${f.message}</p>${factList(facts)}</div>`;
}

function failuresSection(report: ConformanceReport): Html {
  const failing = report.results.filter((r): r is Extract<RequirementResult, { failures: Failure[] }> => r.verdict === 'fail' || r.verdict === 'non-strict');
  if (failing.length === 0) return section('Failures', html`<p class="muted">No requirement failed.</p>`, 'failures');
  const items = failing.map(
    (r) => html`<article class="fail-item" id="${anchor(r.id)}" data-verdict="${r.verdict}"><h3>${badge(r.verdict, verdictTone[r.verdict])} <span class="mono">${r.id}</span> ${badge(r.grade, gradeTone[r.grade])} ${r.title}</h3>
${r.failures.map((f, i) => failureBlock(f, i, r.failures.length))}${r.checks.length > 0 ? html`<details><summary>decided by ${r.checks.length} check${r.checks.length === 1 ? '' : 's'}</summary><ul>${r.checks.map((c) => html`<li class="mono">${c}</li>`)}</ul></details>` : ''}</article>`,
  );
  return section(`Failures (${failing.length})`, html`<p class="muted">Reproduce with the curl line after <code>export IARI_TOKEN=…</code> (the token is never written to a report).</p>${items}`, 'failures');
}

function requirementTable(report: ConformanceReport): Html {
  const rows: Row[] = report.results.map((r) => {
    const failing = r.verdict === 'fail' || r.verdict === 'non-strict';
    const id = failing ? html`<a class="mono" href="#${anchor(r.id)}">${r.id}</a>` : html`<span class="mono">${r.id}</span>`;
    return {
      cells: [id, r.area, badge(r.grade, gradeTone[r.grade]), badge(r.verdict, verdictTone[r.verdict]), r.title, html`<span class="detail">${detailText(r)}</span>`, duration(r.durationMs)],
      filters: { area: r.area, grade: r.grade, verdict: r.verdict },
      className: `v-${r.verdict}`,
    };
  });
  return section(
    'Requirements',
    filterTable({
      id: 'requirement-table',
      columns: [
        { key: 'id', label: 'ID' },
        { key: 'area', label: 'Area', filter: true },
        { key: 'grade', label: 'Grade', filter: true },
        { key: 'verdict', label: 'Verdict', filter: true },
        { key: 'title', label: 'Requirement' },
        { key: 'detail', label: 'Detail' },
        { key: 'duration', label: 'Time', numeric: true },
      ],
      rows,
      search: true,
      filterOrder: { verdict: [...verdicts], grade: ['MUST', 'SHOULD', 'INFO'], area: [...new Set(report.results.map((r) => r.area))] },
    }),
    'requirements',
  );
}

const statusTone: Record<string, Tone> = { honoured: 'good', ignored: 'muted', refused: 'muted', absent: 'muted', broken: 'bad', undecided: 'warn', 'not-probed': 'neutral' };

/** Which features beyond the seed's core the server offers: the question users ask first. */
function capabilitySection(report: ConformanceReport): Html {
  const rows = report.capabilities ?? [];
  if (rows.length === 0) return html``;
  return section(
    'Capabilities',
    html`<p class="muted">The seed's core (its endpoints, table fields, stream framing, tool calls, bearer auth) is judged everywhere. Each feature beyond it was probed; its requirements are judged only where the server offers it, unless declared with <code>--expect</code>.</p>${simpleTable(
      [...CAPABILITY_HEADERS],
      rows.map((r) => [html`<code>${r.name}</code>${r.expected ? html` ${badge('expected', 'info')}` : html``}`, html`<code>${r.member}</code>`, badge(r.status, r.outcome === 'fail' ? 'bad' : (statusTone[r.status] ?? 'neutral')), capabilityOutcome(r), r.detail]),
    )}`,
    'capabilities',
  );
}

function coverageSection(report: ConformanceReport): Html {
  const c = report.coverage;
  const pct = c.registry === 0 ? 0 : (100 * c.exercised) / c.registry;
  return section(
    'Coverage',
    html`<p><strong>${c.exercised}</strong> of <strong>${c.registry}</strong> registered requirements are exercised by a check (${pct.toFixed(1)}%).</p>
<div class="meter" role="meter" aria-valuemin="0" aria-valuemax="${c.registry}" aria-valuenow="${c.exercised}"><span style="width:${pct.toFixed(2)}%"></span></div>
${c.unexercised.length === 0 ? html`<p class="muted">Every requirement is exercised.</p>` : html`<p class="muted">Not exercised by any check:</p><p class="mono id-list">${c.unexercised.join(', ')}</p>`}`,
    'coverage',
  );
}

const css = `
.status{font-size:16px;font-weight:650;margin:0 0 12px;padding:8px 12px;border-radius:8px}
.status-good{color:var(--good);background:var(--good-bg)}.status-bad{color:var(--bad);background:var(--bad-bg)}.status-warn{color:var(--warn);background:var(--warn-bg)}
.vbar{display:flex;height:10px;border-radius:5px;overflow:hidden;margin:14px 0 4px;background:var(--muted-bg)}
.vseg.tone-good{background:var(--good)}.vseg.tone-bad{background:var(--bad)}.vseg.tone-warn{background:var(--warn)}.vseg.tone-info{background:var(--info)}.vseg.tone-muted{background:var(--muted);opacity:.45}
.fail-item{border-top:1px solid var(--line);padding:10px 0}
.fail-item h3{margin:0 0 6px;font-size:14px;font-weight:600}
.failure{margin:6px 0 6px 4px;padding-left:12px;border-left:3px solid var(--bad)}
.fail-item[data-verdict="non-strict"] .failure{border-left-color:var(--warn)}
.failure .message{margin:0 0 4px;font-weight:500}
pre.expected{border-left:3px solid var(--good)}pre.received{border-left:3px solid var(--bad)}
pre.curl{background:var(--head)}
.diff{display:grid;grid-template-columns:1fr 1fr;gap:8px}.diff pre{margin:0}
.detail{color:var(--muted)}
#requirements td:nth-child(-n+4){white-space:nowrap}
tr.v-fail td:first-child{box-shadow:inset 3px 0 var(--bad)}tr.v-non-strict td:first-child{box-shadow:inset 3px 0 var(--warn)}
.linkish{background:none;border:0;padding:0;font:inherit;color:var(--accent);cursor:pointer;text-decoration:underline}
.meter{height:10px;background:var(--muted-bg);border-radius:5px;overflow:hidden;max-width:480px}.meter span{display:block;height:100%;background:var(--good)}
.id-list{line-height:1.8}
.usage-row{display:flex;flex-wrap:wrap;align-items:flex-start;gap:24px}.usage-row .stats{flex:1;min-width:280px;align-content:flex-start}
nav.toc{display:flex;flex-wrap:wrap;gap:14px;font-size:13px;margin:6px 0 0}
`;

const script = `
document.querySelectorAll('[data-set-filter]').forEach(function(b){
  b.addEventListener('click',function(){
    var s=document.querySelector('[data-table="requirement-table"] select[data-filter="'+b.getAttribute('data-set-filter')+'"]');
    if(!s) return;
    s.value=b.getAttribute('data-value');
    s.dispatchEvent(new Event('change'));
    document.getElementById('requirements').scrollIntoView();
  });
});
`;

/** The whole page; `report` must already be redacted (the writer also sanitizes the output). */
export function renderConformanceReport(report: ConformanceReport): string {
  const toc = html`<nav class="toc"><a href="#summary">Summary</a><a href="#capabilities">Capabilities</a><a href="#usage">Usage</a><a href="#failures">Failures</a><a href="#requirements">Requirements</a><a href="#areas">By area</a><a href="#coverage">Coverage</a></nav>`;
  const body = html`${summarySection(report)}${capabilitySection(report)}${usageSection(report)}${failuresSection(report)}${requirementTable(report)}${areaSection(report)}${coverageSection(report)}`;
  return renderPage({
    title: 'iari conformance report',
    subtitle: html`${report.run.baseUrl} · ${report.run.startedAt} · run ${report.run.id}${toc}`,
    body,
    css,
    script,
    generator: `iari ${report.tool.version}`,
  });
}

