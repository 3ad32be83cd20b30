import { coreFaults, type FaultDefinition } from './core/fault-catalogue.ts';
import { receiptFaults } from './faults-receipts.ts';
import { accountFaults } from './core/account-faults.ts';
import { httpFaults } from './core/http-faults.ts';
import { chatFaults } from './core/chat-faults.ts';
import { receiptRouteFaults } from './core/receipt-route-faults.ts';
import { withClientBreaks } from './core/client-impact.ts';
import { boundsFaults } from './core/bounds-faults.ts';
import { rateLimitFaults } from './core/rate-limit-faults.ts';
import { openShapeModes } from './core/open-shapes.ts';
import { modelRouteFaults } from './core/model-route.ts';
import { defaultProtocols, type ProtocolList } from '../src/protocols/registry.ts';
import { responseFormatFaults } from './core/response-format.ts';
import { extensionModes } from './core/extension-modes.ts';
import { toolBreadthFaults } from './core/tool-breadth-faults.ts';
import { reasoningFaults } from './core/reasoning.ts';
import { metricsRouteFaults } from './core/metrics-route.ts';
import { cancelFaults } from './core/cancel-faults.ts';

export type { FaultDefinition };

const ofList = new WeakMap<ProtocolList, readonly FaultDefinition[]>();

/** Every fault and legal mode a mock serving these APIs can apply (each API's own from its protocol): `--fault NAME`, `options.faults`, `x-iari-fault`. */
export function faultsOf(protocols: ProtocolList = defaultProtocols): readonly FaultDefinition[] {
  let list = ofList.get(protocols);
  if (list === undefined) ofList.set(protocols, (list = catalogue(protocols.flatMap((p) => p.mock?.faults ?? []))));
  return list;
}

const catalogue = (apiFaults: readonly FaultDefinition[]): readonly FaultDefinition[] => withClientBreaks([
  ...coreFaults,
  ...accountFaults,
  ...httpFaults,
  ...chatFaults,
  ...receiptRouteFaults,
  ...receiptFaults,
  ...rateLimitFaults,
  ...openShapeModes,
  ...modelRouteFaults,
  ...apiFaults,
  ...responseFormatFaults,
  ...extensionModes,
  ...toolBreadthFaults,
  ...reasoningFaults,
  ...boundsFaults,
  ...metricsRouteFaults,
  ...cancelFaults,
]);

/** Every fault of a mock serving the shipped APIs. */
export const faults: readonly FaultDefinition[] = faultsOf(defaultProtocols);

export const faultNames: ReadonlySet<string> = new Set(faults.map((x) => x.name));

export function faultByName(name: string): FaultDefinition | undefined {
  return faults.find((x) => x.name === name);
}
