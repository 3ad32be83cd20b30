import type { CheckContext } from '../context/check-types.ts';
import type { Capability, CapabilityProbe } from '../registry/capabilities.ts';
import { offers } from '../requests/capability-probes.ts';

/** What an operation hands back: nothing (it worked), a problem in the client's terms, or a reason not to judge. */
/** `deviation`: the client raised another class for another legal status, with the server's message intact: SHOULD at most. */
export type OpResult = undefined | { problem: string; expected?: unknown; received?: unknown; deviation?: true } | { skip: string };

/** What an operation reads of the requests its library sent (ClientTransport here, the child's record there). */
export interface OpTransport {
  /** Where the library is pointed: the target's base URL, or the relay's in the client process. */
  readonly baseUrl: string;
  /** The fetch the library is handed: the only way it reaches the network. */
  readonly fetch: typeof fetch;
  /** Keep each answer's body beside the client's read, for an operation that compares what the client made of it. */
  keepBodies: boolean;
  last(): { status: number | undefined; errorBody: string | undefined; body?: Promise<string> } | undefined;
}

/**
 * What a library operation may read of the run: serialisable values, and the capability probes,
 * which the main process answers (the operations run in the client process, client-child.ts).
 */
export interface OpEnv {
  t: OpTransport;
  /** The first listed model (the MODELS checks judge the list; here it only has to yield one id). */
  model: string;
  /** The key a user configures: the run's token here, a stand-in the relay swaps in the client process. */
  key: string;
  /** False when the run sends no token (issue 43). */
  sendsToken: boolean;
  /** A model id the server does not list. */
  unknownModel: string;
  /** Whether the run was told the server offers `cap` (--expect). */
  expects(cap: Capability): boolean;
  caps(): Promise<ClientCaps>;
  probe(cap: Capability): Promise<CapabilityProbe>;
}

/**
 * What the client may be told to send beyond the seed's table (capabilities.ts): a length bound,
 * stream usage and a forced tool only where the server offers them, as a user of such a server
 * configures the client.
 */
export interface ClientCaps {
  bound: boolean;
  streamUsage: boolean;
  forceTool: boolean;
}

export async function clientCaps(ctx: CheckContext): Promise<ClientCaps> {
  return { bound: await offers(ctx, 'max-completion-tokens'), streamUsage: await offers(ctx, 'stream-usage'), forceTool: await offers(ctx, 'tool-choice') };
}

