import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, escapeHtml, filterTable, html, jsonForScript, raw, renderPage } from './html-shell.ts';

describe('html-shell', () => {
  it('escapes every HTML-significant character', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });

  it('escapes interpolations in the html template but passes nested Html through', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${'<script>'}${raw('<br>')}</p>`.value).toBe('<p><b>&lt;i&gt;</b>&lt;script&gt;<br></p>');
  });

  it('drops null, undefined and false and joins arrays', () => {
    expect(html`${null}${undefined}${false}${['a', html`<b></b>`, 3]}`.value).toBe('a<b></b>3');
  });

  it('makes JSON safe inside a script element', () => {
    const text = jsonForScript({ s: '</script><!-- & \u2028' });
    expect(text).not.toContain('</script>');
    expect(text).not.toContain('<!--');
    expect(JSON.parse(text)).toEqual({ s: '</script><!-- & \u2028' });
  });

  it('renders a page with inline style and script, a CSP that forbids network, and an escaped title', () => {
    const page = renderPage({ title: 'a <b> title', body: html`<p>x</p>` });
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain('<title>a &lt;b&gt; title</title>');
    expect(page).toContain(`content="${escapeHtml(contentSecurityPolicy)}"`);
    expect(contentSecurityPolicy).toContain("default-src 'none'");
    expect(page).not.toMatch(/<(link|img|script)[^>]+(src|href)=["']?https?:/i);
  });

  it('renders a filter table with one select per filter column, distinct values in the given order, and data attributes per row', () => {
    const table = filterTable({
      id: 't',
      columns: [
        { key: 'id', label: 'ID' },
        { key: 'verdict', label: 'Verdict', filter: true },
      ],
      rows: [
        { cells: ['A-1', 'pass'], filters: { verdict: 'pass' } },
        { cells: ['A-2', 'fail'], filters: { verdict: 'fail' }, detail: html`<pre>why</pre>` },
        { cells: ['A-3', '<x>'], filters: { verdict: 'pass' } },
      ],
      search: true,
      filterOrder: { verdict: ['fail', 'pass'] },
    }).value;
    expect(table.match(/<select data-filter="verdict"/g)).toHaveLength(1);
    expect(table).toMatch(/<option value="">all<\/option><option value="fail">fail<\/option><option value="pass">pass<\/option>/);
    expect(table.match(/class="data-row"/g)).toHaveLength(3);
    expect(table).toContain('data-f-verdict="fail"');
    expect(table).toContain('<tr class="detail-row" data-detail-of="1"><td colspan="2"><pre>why</pre></td></tr>');
    expect(table).toContain('&lt;x&gt;');
    expect(table).toContain('data-search');
    expect(table).toContain('3 of 3 rows');
  });
});
