import { LANGCHAIN_TRACING_VARIABLES } from '../checks/clients/langchain-tracing.ts';

/**
 * The iari command owns its process: before any command runs, it turns off what would make a
 * client library of the CLIENT area trace to a third party or print to iari's output, whatever the
 * user's shell exports. LangChain traces to LangSmith and logs prompts from environment variables
 * read on every call (langchain-tracing.ts); the AI SDK prints its warnings to the console unless a
 * global says not to (ai/dist logWarnings; warnings stay on each result). The library never does
 * this to its caller's process: there, LangChain's operations are skipped saying why.
 */
export function quietClientLibraries(env: NodeJS.ProcessEnv, global: { AI_SDK_LOG_WARNINGS?: unknown }): void {
  for (const name of LANGCHAIN_TRACING_VARIABLES) env[name] = 'false';
  global.AI_SDK_LOG_WARNINGS = false;
}
