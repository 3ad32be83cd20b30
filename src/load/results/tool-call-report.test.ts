import { describe, expect, it } from 'vitest';
import { buildToolCallReport, mergeToolCallReports, ToolCallAcc, toolCallLine } from './tool-call-report.ts';
import { BUILTIN_TOOLS, judge } from '../workloads/tool-calls.ts';

const whole = { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' };
const cut = { name: 'search_flights', arguments: '{"from":"CDG","to":"JF' };

describe('tool-call validity under load', () => {
  it('LOAD-TOOLS: a call cut by the request\'s output bound (the answer ended at "length") is counted as cut, not invalid (issue 43)', () => {
    const a = new ToolCallAcc(judge(BUILTIN_TOOLS));
    a.add([whole, cut], 1000, true);
    const r = buildToolCallReport(a, 'builtin')!;
    expect(r).toMatchObject({ calls: 2, cutCalls: 1, invalidCalls: 0, invalidRate: 0, requestsInvalid: 0 });
    expect(toolCallLine(r, String)).toContain('1 cut by the output bound, not judged');
  });

  it('LOAD-TOOLS: the same cut call in an answer that did not end at its bound is invalid (arguments not JSON)', () => {
    const a = new ToolCallAcc(judge(BUILTIN_TOOLS));
    a.add([whole, cut], 1000, false);
    expect(buildToolCallReport(a, 'builtin')).toMatchObject({ calls: 2, cutCalls: 0, invalidCalls: 1, invalidRate: 0.5, invalidByKind: { not_json: 1 } });
  });

  it('LOAD-TOOLS: only the last call of a cut answer is excused: an earlier broken call is still invalid, and the rate is over the judged calls', () => {
    const a = new ToolCallAcc(judge(BUILTIN_TOOLS));
    a.add([{ name: 'get_weather', arguments: '{"city":' }, whole, cut], null, true);
    a.add([whole], null, false);
    const r = buildToolCallReport(a, 'builtin')!;
    expect(r).toMatchObject({ calls: 4, cutCalls: 1, invalidCalls: 1, requestsInvalid: 1 });
    expect(r.invalidRate).toBeCloseTo(1 / 3, 6);
    expect(mergeToolCallReports([r, r])).toMatchObject({ calls: 8, cutCalls: 2, invalidCalls: 2 });
  });
});
