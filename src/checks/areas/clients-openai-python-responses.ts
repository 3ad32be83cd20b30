import type { CheckDef } from '../context/check-types.ts';
import { toolCallProblem, type LocalOpEnv, type OpResult } from '../clients/client-op.ts';
import { judged, pythonOp } from './clients-openai-python.ts';
import { outputTextOf, responsesNotServed, responseTextProblem } from './clients-openai-responses.ts';

// Compat (OpenAI API reference, Responses): openai-python on POST /v1/responses (issue 36), the
// same four operations as openai-node's (clients-openai-responses.ts), run by the driver
// (openai-python-driver.py: responses_*) in the interpreter `--python PATH` names.

async function op(env: LocalOpEnv, name: 'responses_create' | 'responses_stream' | 'responses_stream_helper' | 'responses_tools', judge: (ok: Record<string, unknown>) => OpResult): Promise<OpResult> {
  return (await responsesNotServed(env)) ?? judged(env, name, judge);
}

const create = pythonOp({
  name: 'client-openai-python-responses-create',
  id: 'CLIENT-RESP-005',
  call: 'client.responses.create()',
  title: 'returns a Response whose output_text is the answer',
  run: (env) => op(env, 'responses_create', (ok) => responseTextProblem(ok['text'], ok['status'], ok['reason'], ok['output'])),
});

const streamedCreate = pythonOp({
  name: 'client-openai-python-responses-create-stream',
  id: 'CLIENT-RESP-006',
  call: 'client.responses.create(stream=True)',
  title: 'yields the text deltas and a terminal event whose response holds the same text',
  run: (env) =>
    op(env, 'responses_stream', (ok) => {
      if (ok['terminal'] === null || ok['terminal'] === undefined) return { problem: 'the stream ended without response.completed, response.incomplete or response.failed: the caller never receives the Response', expected: 'a terminal event', received: ok['text'] };
      const final = outputTextOf(ok['output']);
      if (final !== ok['text']) return { problem: `the Response in ${String(ok['terminal'])} holds other text than the deltas streamed`, expected: ok['text'], received: final };
      return responseTextProblem(ok['text'], ok['status'], ok['reason'], ok['output']);
    }),
});

const streamHelper = pythonOp({
  name: 'client-openai-python-responses-stream',
  id: 'CLIENT-RESP-007',
  call: 'client.responses.stream() with get_final_response()',
  title: 'streams the text and get_final_response() returns the Response assembled from it',
  run: (env) =>
    op(env, 'responses_stream_helper', (ok) => {
      // Issue 37: a helper that raises on a truthful `incomplete` is the model's length, never a FAIL.
      const raised = ok['helper_raised_on_incomplete'];
      if (typeof raised === 'string') return { skip: `undecided: the server ended the stream with response.incomplete (reason ${JSON.stringify(ok['reason'] ?? null)}: the model ran to max_output_tokens) and openai-python's get_final_response() raises on it (${raised}); nothing on the wire is the server's fault` };
      if (ok['final_text'] !== ok['text']) return { problem: 'get_final_response().output_text differs from the streamed text', expected: ok['text'], received: ok['final_text'] };
      return responseTextProblem(ok['text'], ok['status'], ok['reason'], ok['output']);
    }),
});

const toolRoundTrip = pythonOp({
  name: 'client-openai-python-responses-tool-round-trip',
  id: 'CLIENT-RESP-008',
  call: 'client.responses.create(tools=...)',
  title: 'returns the forced function_call with JSON arguments, and a text answer once the output items and the function_call_output are sent back',
  run: (env) =>
    op(env, 'responses_tools', (ok) => {
      const call = ok['call'] as { name?: unknown; parsed?: unknown } | null | undefined;
      // Whether the server honours tool_choice is RESP-010's to judge; here a model that made no call is undecided.
      if (call === null || call === undefined) return { skip: `undecided: the model made no function_call (status ${JSON.stringify(ok['status'])}); RESP-010 judges whether tool_choice is honoured` };
      return toolCallProblem(call.name, call.parsed) ?? responseTextProblem(ok['text'], ok['status'], ok['reason'], ok['output']);
    }),
});

export const openaiPythonResponsesClientChecks: CheckDef[] = [create, streamedCreate, streamHelper, toolRoundTrip];
