/**
 * The "Account usage" section of `report.html`: the heatmap of GET /v1/me/usage (seed, Daily usage:
 * "from which an overview heatmap is built") drawn from the counters iari discovered, and what it
 * discovered about the shape (DECISIONS.md D-HTTP-43).
 */
import type { UsageDay } from '../checks/kernel/verdicts.ts';
import type { ConformanceReport } from '../checks/runner/conformance-report.ts';
import { counterKinds, type UsageDiscovery } from '../checks/wire/usage-shape.ts';
import { factList, html, section, simpleTable, statGrid, type Html } from './html-shell.ts';
import { calendarHeatmap } from './svg-charts.ts';

function int(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function usd(value: number): string {
  return `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;
}

/** Tokens of a day: its total, else prompt + completion. */
function tokens(d: UsageDay): number | undefined {
  if (d.total_tokens !== undefined) return d.total_tokens;
  return d.prompt_tokens !== undefined && d.completion_tokens !== undefined ? d.prompt_tokens + d.completion_tokens : undefined;
}

/** The tooltip of one day: the counters the server's rows carry, and only those. */
export function usageTip(d: UsageDay): string {
  const lines = [d.date];
  if (d.requests !== undefined) lines.push(`${int(d.requests)} requests`);
  const t = tokens(d);
  if (t !== undefined) {
    const split = d.prompt_tokens !== undefined && d.completion_tokens !== undefined ? ` (${int(d.prompt_tokens)} prompt, ${int(d.completion_tokens)} completion)` : '';
    lines.push(`${int(t)} tokens${split}`);
  }
  if (d.spend_usd !== undefined) lines.push(`${usd(d.spend_usd)} spend`);
  return lines.join('\n');
}

const daysParam: Record<UsageDiscovery['days']['param'], string> = {
  honoured: 'honoured (days=7 answered at most 7 days)',
  ignored: 'ignored (days=7 answered the same rows)',
  rejected: 'rejected (days=7 answered 4xx)',
  required: 'required (no days answered 4xx)',
  other: 'unclear',
};

/** What iari discovered about the usage rows: where, which member dates them, what each counter is and how it was told. */
export function discoveryBlock(d: UsageDiscovery): Html {
  const s = d.shape;
  const rows = counterKinds.map((k) => {
    const m = s.counters[k];
    const moved = 'moved' in d.probe && m !== undefined ? d.probe.moved[m.member] : undefined;
    return [k, m === undefined ? '(none)' : m.member, m === undefined ? '' : m.by, moved === undefined ? '' : String(moved), m?.note ?? ''];
  });
  const probe = 'usage' in d.probe ? `one completion of ${d.probe.usage.prompt_tokens} prompt + ${d.probe.usage.completion_tokens} completion = ${d.probe.usage.total_tokens} tokens` : `none: ${d.probe.skipped}`;
  return html`<h3>What iari discovered</h3><p class="muted">The seed leaves the fields of <code>GET /v1/me/usage</code> and the <code>days</code> contract open; the cross-checks (USAGE-010..015) ran on these.</p>${factList([
    ['request', html`<code>GET ${d.path}</code>`],
    ['rows', html`<code>${s.rows.pointer === '' ? '(the body)' : s.rows.pointer}</code> (${s.rows.form === 'array' ? 'array of rows' : 'object keyed by day'})`],
    ['day', s.date.member === null ? `the map keys (${s.date.form})` : html`<code>${s.date.member}</code> (${s.date.form})`],
    ['days parameter', `${daysParam[d.days.param]}; without it ${d.days.defaultRows} rows spanning ${d.days.defaultSpanDays} days`],
    ['probe', probe],
    ['not placed', s.unplaced.length === 0 ? '(none)' : s.unplaced.join(', ')],
  ])}${simpleTable(['counts', 'member', 'told by', 'probe moved it by', 'note'], rows)}`;
}

export function usageSection(report: ConformanceReport): Html {
  const found = report.discovered?.usage;
  const discovered = found === undefined ? html`` : discoveryBlock(found);
  if ('unavailable' in report.usage) {
    return section('Account usage', html`<p class="muted">Usage heatmap unavailable: ${report.usage.unavailable}</p>${discovered}`, 'usage');
  }
  const days = report.usage.days;
  const byTokens = days.some((d) => (tokens(d) ?? 0) > 0);
  const value = (d: UsageDay): number => (byTokens ? (tokens(d) ?? 0) : (d.requests ?? 0));
  const heat = calendarHeatmap({
    title: `Daily ${byTokens ? 'tokens' : 'requests'}, ${days[0]?.date ?? ''} to ${days.at(-1)?.date ?? ''} (UTC)`,
    metric: byTokens ? 'total tokens' : 'requests',
    days: days.map((d) => ({ date: d.date, value: value(d), tip: usageTip(d) })),
  });
  const sum = (f: (d: UsageDay) => number | undefined): number | undefined => (days.some((d) => f(d) !== undefined) ? days.reduce((s, d) => s + (f(d) ?? 0), 0) : undefined);
  const requests = sum((d) => d.requests);
  const tokenSum = sum(tokens);
  const spend = sum((d) => d.spend_usd);
  return section(
    'Account usage',
    html`<p class="muted">From <code>GET /v1/me/usage</code>, one cell per UTC day; hover a cell for its numbers.</p><div class="usage-row">${heat}${statGrid([
      { label: 'days', value: days.length },
      { label: 'active days', value: days.filter((d) => value(d) > 0).length },
      ...(requests === undefined ? [] : [{ label: 'requests', value: int(requests) }]),
      ...(tokenSum === undefined ? [] : [{ label: 'tokens', value: int(tokenSum) }]),
      ...(spend === undefined ? [] : [{ label: 'spend', value: usd(spend) }]),
    ])}</div>${discovered}`,
    'usage',
  );
}
