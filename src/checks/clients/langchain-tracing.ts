/**
 * LangChain sends traces to LangSmith (api.smith.langchain.com) when any of these variables is
 * "true" in the environment (`@langchain/core/utils/callbacks.js` isTracingEnabled; LANGCHAIN_TRACING
 * when set at all), and logs every prompt with LANGCHAIN_VERBOSE. LangChain reads them from the
 * environment on every call and offers no per-model switch. Neither may happen inside a
 * conformance run: iari never writes its caller's environment, so where one is on, the LangChain
 * operations are skipped saying why; iari's own command turns them off for its process (src/cli/quiet-clients.ts).
 */
export const LANGCHAIN_TRACING_VARIABLES = ['LANGSMITH_TRACING_V2', 'LANGCHAIN_TRACING_V2', 'LANGSMITH_TRACING', 'LANGCHAIN_TRACING', 'LANGCHAIN_VERBOSE'] as const;

/** The variables of `env` that would make LangChain trace or log (`NAME=value`). */
export function langchainTracing(env: Readonly<Record<string, string | undefined>>): string[] {
  return LANGCHAIN_TRACING_VARIABLES.filter((name) => {
    const v = env[name];
    return name === 'LANGCHAIN_TRACING' ? v !== undefined && v !== '' && v !== 'false' : v === 'true';
  }).map((name) => `${name}=${env[name] ?? ''}`);
}
