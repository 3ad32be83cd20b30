// The model catalogue: availability changes while the server runs (retire / add).
import { modelsWithExtraFields } from './open-shapes.ts';

export interface ModelInfo {
  id: string;
  created: number;
  owned_by: string;
  /** Price in nano-USD per token (1e-9 USD). */
  inputNanoPerToken: number;
  outputNanoPerToken: number;
  provider: string;
}

export const defaultModels: readonly ModelInfo[] = [
  // Prices are whole micro-dollars per token, so every spend has at most 6 decimals and sums exactly.
  // $1 / $2 per million tokens
  { id: 'iari-mini', created: 1_735_689_600, owned_by: 'iari', inputNanoPerToken: 1_000, outputNanoPerToken: 2_000, provider: 'iari-mock' },
  // $5 / $15 per million tokens
  { id: 'iari-large', created: 1_738_368_000, owned_by: 'iari', inputNanoPerToken: 5_000, outputNanoPerToken: 15_000, provider: 'iari-mock' },
  // $1 / $3 per million tokens
  { id: 'iari-legacy', created: 1_704_067_200, owned_by: 'iari', inputNanoPerToken: 1_000, outputNanoPerToken: 3_000, provider: 'iari-mock' },
  // A reasoning model (mock-server/core/reasoning.ts): $2 / $8 per million tokens
  { id: 'iari-reasoner', created: 1_740_787_200, owned_by: 'iari', inputNanoPerToken: 2_000, outputNanoPerToken: 8_000, provider: 'iari-mock' },
];

export type ModelInput = Partial<ModelInfo> & { id: string };

/**
 * A model the mock retired before it started: it answers 404 model_not_found like any retired model,
 * so a fresh mock already has a retirement for the `models-retired-still-listed` fault to show
 * (MODELS-008: the list names a model chat refuses), whatever ran on the mock before.
 */
export const formerModels: readonly ModelInput[] = [{ id: 'iari-retired', created: 1_704_067_200, owned_by: 'iari' }];

export class ModelCatalogue {
  private readonly models = new Map<string, ModelInfo>();
  private readonly retiredModels = new Map<string, ModelInfo>();
  private listCache: string | null = null;

  constructor(initial: readonly ModelInput[] = defaultModels, former: readonly ModelInput[] = formerModels) {
    for (const m of former) this.retire(this.add(m).id);
    for (const m of initial) this.add(m);
  }

  add(input: ModelInput): ModelInfo {
    const model: ModelInfo = {
      created: Math.floor(Date.now() / 1000),
      owned_by: 'iari',
      inputNanoPerToken: 1_000,
      outputNanoPerToken: 3_000,
      provider: 'iari-mock',
      ...input,
    };
    this.models.set(model.id, model);
    this.retiredModels.delete(model.id);
    this.listCache = null;
    return model;
  }

  retire(id: string): boolean {
    const model = this.models.get(id);
    if (model === undefined) return false;
    this.models.delete(id);
    this.retiredModels.set(id, model);
    this.listCache = null;
    return true;
  }

  retired(id: string): ModelInfo | undefined {
    return this.retiredModels.get(id);
  }

  retiredIds(): string[] {
    return [...this.retiredModels.keys()];
  }

  get(id: string): ModelInfo | undefined {
    return this.models.get(id);
  }

  ids(): string[] {
    return [...this.models.keys()];
  }

  all(): ModelInfo[] {
    return [...this.models.values()];
  }

  /** HTTP profile: `{"object":"list","data":[{"id","object":"model","created","owned_by"}]}`. */
  listBody(faults: ReadonlySet<string>): string {
    if (faults.size === 0) {
      this.listCache ??= JSON.stringify({
        object: 'list',
        data: this.all().map((m) => ({ id: m.id, object: 'model', created: m.created, owned_by: m.owned_by })),
      });
      return this.listCache;
    }
    const models = faults.has('models-retired-still-listed') ? [...this.all(), ...this.retiredModels.values()] : this.all();
    const data = models.map((m) => {
      const item: Record<string, unknown> = { id: m.id, object: 'model', created: m.created, owned_by: faults.has('models-owned-by-list') ? [m.owned_by] : m.owned_by };
      if (faults.has('models-missing-created')) delete item['created'];
      return item;
    });
    if (faults.has('legal-models-extra-fields')) return JSON.stringify(modelsWithExtraFields(data));
    return JSON.stringify(faults.has('models-bare-array') ? data : { object: 'list', data });
  }
}
