import { describe, expect, it } from 'vitest';
import { agentRunProblem, modelsOwnStop } from './clients-agents.ts';

class ModelBehaviorError extends Error {}
class MaxTurnsExceededError extends Error {}

describe('an Agents SDK run judged on the server, not the model', () => {
  it('CLIENT-RESP-009: a turn ended incomplete (the model at max_output_tokens) is undecided; another unsuccessful state is not excused', () => {
    expect(modelsOwnStop(new ModelBehaviorError('OpenAI Responses request ended with unsuccessful terminal state "response.incomplete".'), 1)).toMatch(/^undecided: the server ended a turn with response.incomplete/);
    expect(modelsOwnStop(new ModelBehaviorError('OpenAI Responses request ended with unsuccessful terminal state "response.failed".'), 1)).toBeUndefined();
    expect(modelsOwnStop(new ModelBehaviorError('Model did not produce a final response!'), 1)).toBeUndefined();
    expect(modelsOwnStop(new TypeError('"response.incomplete"'), 1)).toBeUndefined();
  });

  it('CLIENT-RESP-010: the turn limit is the model\'s only when it called the tool on every turn', () => {
    expect(modelsOwnStop(new MaxTurnsExceededError('Max turns (4) exceeded'), 4)).toMatch(/^undecided: the model kept calling the tool/);
    expect(modelsOwnStop(new MaxTurnsExceededError('Max turns (4) exceeded'), 0)).toBeUndefined();
  });

  it('CLIENT-RESP-009, CLIENT-RESP-010: no tool call is undecided; a call without a city or an empty final output are judged', () => {
    expect(agentRunProblem([], 'Sunny')).toEqual({ skip: expect.stringMatching(/^undecided: the agent finished without calling its tool/) });
    expect(agentRunProblem([{ town: 'Zürich' }], 'Sunny')).toMatchObject({ problem: expect.stringMatching(/city/) });
    expect(agentRunProblem(['{"city":"Zürich"}'], 'Sunny')).toBeUndefined();
    expect(agentRunProblem([{ city: 'Zürich' }], 'It is 21 °C.')).toBeUndefined();
    expect(agentRunProblem([{ city: 'Zürich' }], '')).toEqual({ skip: expect.stringMatching(/^undecided: the model answered no text/) });
    expect(agentRunProblem([{ city: 'Zürich' }], undefined)).toMatchObject({ problem: 'the client returned no text' });
  });
});
