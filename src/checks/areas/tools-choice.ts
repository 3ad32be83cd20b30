import type { CheckDef } from '../context/check-types.ts';
import type { HttpExchange } from '../http/check-http.ts';
import type { Failure } from '../kernel/verdicts.ts';
import { evidence, at, isRecord } from '../kernel/evidence.ts';
import { FORCED_FUNCTION, toolChoiceTurns, type ToolChoiceTurns } from '../requests/tool-choice-turns.ts';

// Issue 37 item 3: tool_choice is the server's to enforce (constrained decoding makes it so), not an
// extension member it may silently ignore. A server that cannot honour it refuses it with a 4xx.

export interface ForcedChoiceFindings {
  violations: Failure[];
  honoured: string[];
  refused: string[];
  undecided: string[];
}

type Calls = { name: unknown }[];

function callsOf(ex: HttpExchange): Calls {
  const calls = at(ex.json, 'choices', 0, 'message', 'tool_calls');
  return Array.isArray(calls) ? calls.map((c) => ({ name: at(c, 'function', 'name') })) : [];
}

/** Each variant the server accepted is judged on its own answer: a forced call is the server's to make, whatever the model. */
export function forcedChoiceFindings(turns: Pick<ToolChoiceTurns, 'none' | 'named' | 'required'>): ForcedChoiceFindings {
  const out: ForcedChoiceFindings = { violations: [], honoured: [], refused: [], undecided: [] };
  const variants: { what: string; ex: HttpExchange; forces: boolean; right: (calls: Calls) => boolean; expected: string }[] = [
    { what: 'tool_choice "none"', ex: turns.none, forces: false, right: (calls) => calls.length === 0, expected: 'no tool call' },
    { what: `tool_choice naming ${FORCED_FUNCTION}`, ex: turns.named, forces: true, right: (calls) => calls.some((c) => c.name === FORCED_FUNCTION), expected: `a call of ${FORCED_FUNCTION}` },
    { what: 'tool_choice "required"', ex: turns.required, forces: true, right: (calls) => calls.length > 0, expected: 'at least one tool call' },
  ];
  for (const { what, ex, forces, right, expected } of variants) {
    // A server that cannot honour tool_choice refuses it: a legal profile, shown as refused in the capability row.
    if (ex.status >= 400 && ex.status < 500) {
      out.refused.push(`${what} answered ${ex.status}`);
      continue;
    }
    if (ex.status !== 200) {
      out.undecided.push(`${what} answered ${ex.status}`);
      continue;
    }
    const choice = at(ex.json, 'choices', 0);
    if (!isRecord(choice)) {
      out.undecided.push(`${what}: no choice to read (judged by CHAT)`);
      continue;
    }
    const calls = callsOf(ex);
    if (right(calls)) {
      out.honoured.push(what);
      continue;
    }
    const finish = choice['finish_reason'];
    // A forced call cut at the output bound before any call is the model's length, not the server's choice (issue 37: the
    // cap never makes a FAIL); a call of another function than the named one is not (an enforcing server's first call is it).
    if (forces && finish === 'length' && calls.length === 0) {
      out.undecided.push(`${what}: the answer was cut at the output bound (finish reason "length") before a call`);
      continue;
    }
    const received = calls.length > 0 ? calls.map((c) => c.name) : { content: at(choice, 'message', 'content'), finish_reason: finish };
    out.violations.push(evidence(ex, `${what} was accepted (200) and not honoured: ${calls.length === 0 ? 'no tool call' : `${calls.length} call(s) of ${calls.map((c) => JSON.stringify(c.name)).join(', ')}`}`, { expected, received }));
  }
  return out;
}

const choiceEnforced: CheckDef = {
  name: 'tools-choice-enforced',
  area: 'tools',
  ids: ['TOOLS-027'],
  title: 'an accepted tool_choice is enforced: "none" makes no call, "required" and a named function make the call',
  async run(ctx, j) {
    const found = forcedChoiceFindings(await toolChoiceTurns(ctx));
    if (found.violations.length > 0) {
      for (const v of found.violations) j.violated('TOOLS-027', v);
      return;
    }
    if (found.undecided.length > 0) return j.skip('TOOLS-027', `undecided: ${found.undecided.join('; ')}${found.honoured.length === 0 ? '' : `; honoured: ${found.honoured.join(', ')}`}`);
    if (found.honoured.length === 0) return j.skip('TOOLS-027', `tool_choice is refused (${found.refused.join('; ')}): nothing accepted to enforce`);
    j.pass('TOOLS-027');
  },
};

export const toolsChoiceChecks: CheckDef[] = [choiceEnforced];
