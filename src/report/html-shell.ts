/**
 * A self-contained HTML page: inline CSS and JS only, no network (a Content-Security-Policy
 * forbids every fetch), readable in light and dark schemes. Values reach the page only through
 * the `html` template, which escapes every interpolation unless it is already `Html`.
 */

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Marks trusted markup (built by this module or by `html`) so it is not escaped again. */
export function raw(markup: string): Html {
  return new Html(markup);
}

const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values alike. */
export function escapeHtml(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
  return text.replace(/[&<>"']/g, (c) => htmlEscapes[c] ?? c);
}

type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

function interpolate(value: Interpolation): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map((v: Interpolation) => interpolate(v)).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
}

/** Tagged template: `html\`<td>${text}</td>\`` escapes `text`; nested `Html` passes through. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += interpolate(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** JSON for a `<script type="application/json">` block: `<`, `>`, `&` and line separators escaped. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export interface PageOptions {
  title: string;
  subtitle?: string | Html;
  body: Html;
  /** Extra CSS appended after the base style. */
  css?: string;
  /** Extra JS appended after the base script (runs after DOMContentLoaded). */
  script?: string;
  generator?: string;
}

export const contentSecurityPolicy =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; font-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'";

export function renderPage(options: PageOptions): string {
  const doc = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="${options.generator ?? 'iari'}">
<title>${options.title}</title>
<style>${raw(baseCss)}${raw(options.css ?? '')}</style>
</head>
<body>
<header class="page-head"><h1>${options.title}</h1>${options.subtitle === undefined ? '' : html`<p class="subtitle">${options.subtitle}</p>`}</header>
<main>
${options.body}
</main>
<div id="tip" class="tip" role="tooltip" hidden></div>
<script>${raw(baseScript)}${raw(options.script ?? '')}</script>
</body>
</html>
`;
  return doc.value;
}

export function section(title: string, body: Html, id?: string): Html {
  return html`<section class="card"${id === undefined ? '' : raw(` id="${escapeHtml(id)}"`)}><h2>${title}</h2>${body}</section>`;
}

export interface Stat {
  label: string;
  value: string | number;
  tone?: Tone;
  hint?: string;
}

export type Tone = 'good' | 'bad' | 'warn' | 'info' | 'muted' | 'neutral';

export function statGrid(stats: readonly Stat[]): Html {
  return html`<div class="stats">${stats.map(
    (s) => html`<div class="stat tone-${s.tone ?? 'neutral'}"${s.hint === undefined ? '' : raw(` title="${escapeHtml(s.hint)}"`)}><div class="stat-value">${s.value}</div><div class="stat-label">${s.label}</div></div>`,
  )}</div>`;
}

export function badge(text: string, tone: Tone): Html {
  return html`<span class="badge tone-${tone}">${text}</span>`;
}

/** A definition list of key/value facts (target, duration, seed ...). */
export function factList(facts: readonly (readonly [string, string | Html])[]): Html {
  return html`<dl class="facts">${facts.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

export interface Column {
  key: string;
  label: string;
  /** A select filter over the distinct values of `filters[key]` of the rows. */
  filter?: boolean;
  numeric?: boolean;
}

export interface Row {
  cells: readonly (Html | string | number)[];
  /** Filter values, keyed by column key; rendered as data-f-<key> attributes. */
  filters?: Record<string, string>;
  className?: string;
  id?: string;
  /** Markup shown in a full-width row under this one (e.g. failure details), hidden with it. */
  detail?: Html;
}

export interface TableOptions {
  id: string;
  columns: readonly Column[];
  rows: readonly Row[];
  search?: boolean;
  /** Option order for select filters (values not listed follow, sorted). */
  filterOrder?: Record<string, readonly string[]>;
  caption?: string;
  emptyText?: string;
}

/**
 * A table with client-side filters: one select per filterable column, an optional text search
 * over the row's text, and a live "N of M rows" count. Rows hide with the `hidden` attribute.
 */
export function filterTable(options: TableOptions): Html {
  const id = options.id;
  const selects = options.columns
    .filter((c) => c.filter === true)
    .map((c) => {
      const seen = new Set(options.rows.map((r) => r.filters?.[c.key]).filter((v): v is string => v !== undefined));
      const order = options.filterOrder?.[c.key] ?? [];
      const values = [...order.filter((v) => seen.has(v)), ...[...seen].filter((v) => !order.includes(v)).sort()];
      return html`<label class="filter">${c.label}<select data-filter="${c.key}" aria-label="Filter by ${c.label}"><option value="">all</option>${values.map(
        (v) => html`<option value="${v}">${v}</option>`,
      )}</select></label>`;
    });
  const search = options.search === true ? html`<label class="filter search">Search<input type="search" data-search placeholder="ID, title, message…" aria-label="Search rows"></label>` : '';
  const head = html`<tr>${options.columns.map((c) => html`<th scope="col"${c.numeric === true ? raw(' class="num"') : ''}>${c.label}</th>`)}</tr>`;
  const body = options.rows.map((r, index) => {
    const attrs = Object.entries(r.filters ?? {})
      .map(([k, v]) => ` data-f-${escapeHtml(k)}="${escapeHtml(v)}"`)
      .join('');
    const rowId = r.id === undefined ? '' : ` id="${escapeHtml(r.id)}"`;
    const cls = `data-row${r.className === undefined ? '' : ` ${r.className}`}`;
    const cells = r.cells.map((cell, i) => html`<td${options.columns[i]?.numeric === true ? raw(' class="num"') : ''}>${cell}</td>`);
    const main = html`<tr class="${cls}" data-row="${index}"${raw(rowId)}${raw(attrs)}>${cells}</tr>`;
    if (r.detail === undefined) return main;
    return html`${main}<tr class="detail-row" data-detail-of="${index}"><td colspan="${options.columns.length}">${r.detail}</td></tr>`;
  });
  return html`<div class="table-wrap" data-table="${id}">
<div class="filters">${selects}${search}<button type="button" class="reset" data-reset>Reset</button><span class="count" data-count aria-live="polite">${options.rows.length} of ${options.rows.length} rows</span></div>
<table id="${id}" class="data" data-filterable>${options.caption === undefined ? '' : html`<caption>${options.caption}</caption>`}<thead>${head}</thead><tbody>${body}</tbody></table>
<p class="empty" data-empty hidden>${options.emptyText ?? 'No rows match the filters.'}</p>
</div>`;
}

/** A plain table (no filters), for small summaries. */
export function simpleTable(headers: readonly string[], rows: readonly (readonly (Html | string | number)[])[], numeric: readonly number[] = []): Html {
  return html`<table class="data simple"><thead><tr>${headers.map((h, i) => html`<th scope="col"${numeric.includes(i) ? raw(' class="num"') : ''}>${h}</th>`)}</tr></thead><tbody>${rows.map(
    (r) => html`<tr>${r.map((c, i) => html`<td${numeric.includes(i) ? raw(' class="num"') : ''}>${c}</td>`)}</tr>`,
  )}</tbody></table>`;
}

const baseCss = `
:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#1d2330;--muted:#5d6678;--card:#fff;--line:#dde1e8;--head:#eef1f5;
--good:#1a7f37;--good-bg:#dafbe1;--bad:#c62828;--bad-bg:#ffe3e3;--warn:#9a6700;--warn-bg:#fff4c7;--info:#0b5cad;--info-bg:#dcebff;
--muted-bg:#eceef2;--accent:#0b5cad;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;
--heat0:#ebedf0;--heat1:#c6e48b;--heat2:#7bc96f;--heat3:#239a3b;--heat4:#196127;--series1:#0b5cad;--series2:#d9480f;--series3:#2b8a3e;--series4:#862e9c;--grid:#e3e6eb}
@media (prefers-color-scheme:dark){:root{--bg:#0f1217;--fg:#e4e7ec;--muted:#9aa3b2;--card:#171b22;--line:#2b313c;--head:#1e232c;
--good:#56d364;--good-bg:#12301b;--bad:#ff7b72;--bad-bg:#3a1618;--warn:#e3b341;--warn-bg:#33290b;--info:#79b8ff;--info-bg:#10263f;--muted-bg:#242a33;--accent:#79b8ff;
--heat0:#1f242c;--heat1:#0e4429;--heat2:#006d32;--heat3:#26a641;--heat4:#39d353;--series1:#79b8ff;--series2:#ffa657;--series3:#56d364;--series4:#d2a8ff;--grid:#262c36}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
.page-head{padding:20px 28px 8px}
h1{margin:0;font-size:22px;letter-spacing:.2px}
.subtitle{margin:4px 0 0;color:var(--muted)}
main{padding:8px 28px 40px;max-width:1400px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 20px;margin:14px 0}
.card h2{margin:0 0 12px;font-size:16px}
.card h3{margin:14px 0 8px;font-size:14px}
.stats{display:flex;flex-wrap:wrap;gap:10px}
.stat{min-width:110px;padding:10px 14px;border-radius:8px;background:var(--muted-bg);border-left:4px solid var(--line)}
.stat-value{font-size:22px;font-weight:650;font-variant-numeric:tabular-nums}
.stat-label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.4px}
.stat.tone-good{border-left-color:var(--good)}.stat.tone-bad{border-left-color:var(--bad)}.stat.tone-warn{border-left-color:var(--warn)}.stat.tone-info{border-left-color:var(--info)}
.badge{display:inline-block;padding:1px 8px;border-radius:999px;font-size:12px;font-weight:600;white-space:nowrap}
.tone-good.badge{color:var(--good);background:var(--good-bg)}.tone-bad.badge{color:var(--bad);background:var(--bad-bg)}
.tone-warn.badge{color:var(--warn);background:var(--warn-bg)}.tone-info.badge{color:var(--info);background:var(--info-bg)}
.tone-muted.badge,.tone-neutral.badge{color:var(--muted);background:var(--muted-bg)}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:12px 0 0}
.facts dt{color:var(--muted)}.facts dd{margin:0;font-family:var(--mono);font-size:13px;overflow-wrap:anywhere}
.filters{display:flex;flex-wrap:wrap;align-items:end;gap:10px 14px;margin-bottom:10px}
.filter{display:flex;flex-direction:column;font-size:12px;color:var(--muted);gap:2px}
.filter select,.filter input,.reset{font:inherit;font-size:13px;color:var(--fg);background:var(--card);border:1px solid var(--line);border-radius:6px;padding:4px 8px}
.filter.search input{min-width:240px}
.reset{cursor:pointer}
.count{color:var(--muted);font-size:12px;margin-left:auto}
.table-wrap{overflow-x:auto}
table.data{border-collapse:collapse;width:100%;font-size:13px}
table.data th{position:sticky;top:0;background:var(--head);text-align:left;font-weight:600;padding:6px 10px;border-bottom:1px solid var(--line)}
table.data td{padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top}
table.data .num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.data tr.data-row:hover td{background:var(--muted-bg)}
tr.detail-row td{background:var(--bg);padding:4px 10px 12px 28px}
.mono,code{font-family:var(--mono);font-size:12.5px}
pre{font-family:var(--mono);font-size:12px;background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0}
.empty{color:var(--muted);font-style:italic}
.muted{color:var(--muted)}
.tip{position:fixed;z-index:10;pointer-events:none;background:var(--fg);color:var(--bg);padding:5px 8px;border-radius:6px;font-size:12px;white-space:pre;box-shadow:0 2px 8px rgba(0,0,0,.25)}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(440px,1fr));gap:14px}
figure.chart{margin:0}
figure.chart figcaption{font-weight:600;font-size:13px;margin-bottom:4px}
svg.chart{width:100%;height:auto;display:block;font:11px system-ui,sans-serif;color:var(--fg)}
svg.chart text{fill:var(--muted)}
svg.chart .axis line,svg.chart .axis path{stroke:var(--line)}
svg.chart .grid line{stroke:var(--grid);stroke-dasharray:2 3}
svg.chart .bar{fill:var(--series1);opacity:.85}
svg.chart .hit{fill:transparent;stroke:none}svg.chart .hit:hover{fill:var(--series1);stroke:var(--fg)}
svg.chart .bar:hover,svg.chart .heat-cell:hover{opacity:1;stroke:var(--fg);stroke-width:1}
svg.chart .line{fill:none;stroke-width:2}
svg.chart .s0{stroke:var(--series1);fill:var(--series1)}svg.chart .s1{stroke:var(--series2);fill:var(--series2)}
svg.chart .s2{stroke:var(--series3);fill:var(--series3)}svg.chart .s3{stroke:var(--series4);fill:var(--series4)}
svg.chart .t-good{stroke:var(--good);fill:var(--good)}svg.chart .t-bad{stroke:var(--bad);fill:var(--bad)}svg.chart .t-warn{stroke:var(--warn);fill:var(--warn)}
svg.chart path.line{fill:none}
svg.chart .marker{stroke:var(--bad);stroke-dasharray:4 3}
svg.chart .marker-label{fill:var(--bad)}
svg.chart .pct{stroke:var(--warn);stroke-dasharray:3 3}
svg.chart .pct-label{fill:var(--warn)}
svg.chart .h0{fill:var(--heat0)}svg.chart .h1{fill:var(--heat1)}svg.chart .h2{fill:var(--heat2)}svg.chart .h3{fill:var(--heat3)}svg.chart .h4{fill:var(--heat4)}
svg.chart .dot-ok{fill:var(--good)}svg.chart .dot-bad{fill:var(--bad)}
.legend{display:flex;flex-wrap:wrap;gap:12px;font-size:12px;color:var(--muted);margin-top:4px}
.legend .sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
details summary{cursor:pointer}
a{color:var(--accent)}
`;

const baseScript = `
(function(){
  function norm(s){return (s||'').toLowerCase();}
  document.querySelectorAll('[data-table]').forEach(function(wrap){
    var table=wrap.querySelector('table[data-filterable]');
    if(!table) return;
    var rows=Array.prototype.slice.call(table.querySelectorAll('tbody tr.data-row'));
    var details={};
    table.querySelectorAll('tbody tr.detail-row').forEach(function(d){details[d.getAttribute('data-detail-of')]=d;});
    var selects=Array.prototype.slice.call(wrap.querySelectorAll('select[data-filter]'));
    var search=wrap.querySelector('input[data-search]');
    var count=wrap.querySelector('[data-count]');
    var empty=wrap.querySelector('[data-empty]');
    var texts=rows.map(function(r){var d=details[r.getAttribute('data-row')];return norm(r.textContent+' '+(d?d.textContent:''));});
    function apply(){
      var q=search?norm(search.value).trim():'';
      var shown=0;
      rows.forEach(function(r,i){
        var ok=selects.every(function(s){return !s.value||r.getAttribute('data-f-'+s.getAttribute('data-filter'))===s.value;});
        if(ok&&q) ok=q.split(/\\s+/).every(function(w){return texts[i].indexOf(w)>=0;});
        r.hidden=!ok;
        var d=details[r.getAttribute('data-row')]; if(d) d.hidden=!ok;
        if(ok) shown++;
      });
      if(count) count.textContent=shown+' of '+rows.length+' rows';
      if(empty) empty.hidden=shown>0;
      table.setAttribute('data-visible',String(shown));
    }
    selects.forEach(function(s){s.addEventListener('change',apply);});
    if(search) search.addEventListener('input',apply);
    var reset=wrap.querySelector('[data-reset]');
    if(reset) reset.addEventListener('click',function(){selects.forEach(function(s){s.value='';});if(search)search.value='';apply();});
    apply();
  });
  var tip=document.getElementById('tip');
  function show(e){
    var t=e.target.closest?e.target.closest('[data-tip]'):null;
    if(!t){tip.hidden=true;return;}
    tip.textContent=t.getAttribute('data-tip');
    tip.hidden=false;
    var x=e.clientX+14,y=e.clientY+14,w=tip.offsetWidth,h=tip.offsetHeight;
    if(x+w>window.innerWidth-4)x=e.clientX-w-10;
    if(y+h>window.innerHeight-4)y=e.clientY-h-10;
    tip.style.left=x+'px';tip.style.top=y+'px';
  }
  document.addEventListener('mousemove',show);
  document.addEventListener('mouseleave',function(){tip.hidden=true;});
  window.addEventListener('scroll',function(){tip.hidden=true;},{passive:true});
})();
`;
