import { describe, expect, it } from 'vitest';
import { escapeXml, escapeXmlAttr, junitXml } from './junit-xml.ts';

describe('junit-xml', () => {
  it('escapes markup characters and replaces characters XML forbids', () => {
    expect(escapeXml(`a<b>&"c"'\u0000\u001b\uFFFE`)).toBe('a&lt;b&gt;&amp;&quot;c&quot;&apos;\uFFFD\uFFFD\uFFFD');
    expect(escapeXml('ok \u{1F600}')).toBe('ok \u{1F600}');
    expect(escapeXml('lone \uD800 x')).toBe('lone \uFFFD x');
  });

  it('keeps line breaks in attributes as character references', () => {
    expect(escapeXmlAttr('a\nb\tc\r')).toBe('a&#10;b&#9;c&#13;');
  });

  it('writes one testcase per case with failure, skipped and passed outcomes and correct totals', () => {
    const xml = junitXml('iari', [
      {
        name: 'CHAT',
        timestamp: '2026-11-21T09:00:00Z',
        cases: [
          { name: 'CHAT-001', classname: 'CHAT', timeSeconds: 0.0123, outcome: { kind: 'passed' } },
          { name: 'CHAT-002', classname: 'CHAT', timeSeconds: 0.5, outcome: { kind: 'failure', message: 'expected <200>', type: 'fail', details: 'a ]]> b & c' } },
          { name: 'CHAT-003', classname: 'CHAT', timeSeconds: 0, outcome: { kind: 'skipped', message: 'no receipts' }, properties: { grade: 'MUST' } },
        ],
      },
      { name: 'EMPTY', cases: [] },
    ]);
    expect(xml).toContain('<testsuites name="iari" tests="3" failures="1" errors="0" skipped="1" time="0.512">');
    expect(xml).toContain('<testsuite name="CHAT" tests="3" failures="1" errors="0" skipped="1" time="0.512" timestamp="2026-11-21T09:00:00Z">');
    expect(xml).toContain('<testcase name="CHAT-001" classname="CHAT" time="0.012"/>');
    expect(xml).toContain('<failure message="expected &lt;200&gt;" type="fail">a ]]&gt; b &amp; c</failure>');
    expect(xml).toContain('<skipped message="no receipts"/>');
    expect(xml).toContain('<property name="grade" value="MUST"/>');
    expect(xml).toContain('<testsuite name="EMPTY" tests="0" failures="0" errors="0" skipped="0" time="0.000"/>');
    expect(xml.match(/<testcase /g)).toHaveLength(3);
  });

  it('round-trips names, messages and details through XML entity decoding', () => {
    const decode = (t: string) =>
      t.replace(/&(#\d+|lt|gt|amp|quot|apos);/g, (_m, e: string) =>
        e.startsWith('#') ? String.fromCharCode(Number(e.slice(1))) : ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" } as Record<string, string>)[e] ?? '',
      );
    const xml = junitXml('n', [{ name: 's', cases: [{ name: 'X-1 <"&">', classname: 'c', timeSeconds: 1, outcome: { kind: 'failure', message: 'm\nline2', details: '<tag>\u0007' } }] }]);
    // Well-formed: no raw '<' or '&' inside attribute values or text.
    expect(xml).not.toMatch(/="[^"]*[<&](?!lt;|gt;|amp;|quot;|apos;|#\d+;)[^"]*"/);
    expect(decode(/<testcase name="([^"]*)"/.exec(xml)?.[1] ?? '')).toBe('X-1 <"&">');
    expect(decode(/<failure message="([^"]*)"/.exec(xml)?.[1] ?? '')).toBe('m\nline2');
    expect(decode(/<failure[^>]*>([^<]*)<\/failure>/.exec(xml)?.[1] ?? '')).toBe('<tag>\uFFFD');
  });
});
