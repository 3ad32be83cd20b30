// The APIs iari knows, one line each. Consumers are handed a list (this one by default, or one a
// test extends with an API of its own) and iterate it: none imports an API's folder.
import type { Protocol } from './protocol.ts';
import { HarnessError, HarnessErrorCode } from '../errors.ts';
import { chatCompletions } from './chat-completions/chat-completions-protocol.ts';
import { embeddings } from './embeddings/embeddings-protocol.ts';
import { responses } from './responses/responses-protocol.ts';

/** A list of protocols; the first is the API a run sends to when it names none. */
export type ProtocolList = readonly [Protocol, ...Protocol[]];

export const defaultProtocols: ProtocolList = [chatCompletions, embeddings, responses];

/** The protocol of that name in the list; an unknown name is a usage error listing the known ones. */
export function protocolNamed(list: ProtocolList, name: string): Protocol {
  const found = list.find((p) => p.name === name);
  if (found === undefined) throw new HarnessError(HarnessErrorCode.USAGE, `unknown API "${name}"`, { hint: `APIs: ${list.map((p) => p.name).join(', ')}` });
  return found;
}

/** The protocol that serves `method path` (a path relative to the base URL's /v1), if any. */
export function protocolOfRoute(list: ProtocolList, method: string, path: string): Protocol | undefined {
  return list.find((p) => p.routes.some((r) => r.method === method && r.path === path));
}

/** The whole path of a protocol route from the server's root (`/v1/embeddings`). */
export const rootPath = (route: { path: string }): string => `/v1${route.path}`;
