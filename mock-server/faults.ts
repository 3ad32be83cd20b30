import { coreFaults, type FaultDefinition } from './core/fault-catalogue.ts';

export type { FaultDefinition };

// The receipt faults live in faults-receipts.ts (owned by the receipts side of the mock); a
// variable specifier keeps this module loadable while that file does not exist yet.
async function loadReceiptFaults(): Promise<readonly FaultDefinition[]> {
  const specifier = './faults-receipts.ts';
  try {
    const mod = (await import(specifier)) as Record<string, unknown>;
    const list = mod['receiptFaults'] ?? mod['faults'] ?? mod['default'];
    return Array.isArray(list) ? (list as FaultDefinition[]) : [];
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') return [];
    throw error;
  }
}

/** Every fault and legal mode the mock can apply: `--fault NAME`, `options.faults`, `x-iari-fault`. */
export const faults: readonly FaultDefinition[] = [...coreFaults, ...(await loadReceiptFaults())];

export const faultNames: ReadonlySet<string> = new Set(faults.map((x) => x.name));

export function faultByName(name: string): FaultDefinition | undefined {
  return faults.find((x) => x.name === name);
}
