// Child process of offline.test.ts: LangChain's chat model as a user builds it, with none of the
// switches iari sets, asked to count tokens under the offline guard. Prints what the guard refused
// as JSON and exits (LangChain would otherwise retry the download for a minute).
import { installOfflineGuard } from './offline-guard.ts';

const guard = installOfflineGuard();
console.warn = () => undefined;
const { ChatOpenAICompletions } = await import('@langchain/openai');
const bare = new ChatOpenAICompletions({ model: 'gpt-4o-mini', apiKey: 'sk-unused', configuration: { baseURL: 'http://127.0.0.1:9/v1' } });
void bare.getNumTokens('How many tokens is this?').catch(() => undefined);
const deadline = Date.now() + 15_000;
while (guard.attempts.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
process.stdout.write(`${JSON.stringify(guard.attempts)}\n`);
process.exit(0);
