// Generated from src/checks/catalog.ts by `npx tsx src/checks/write-contract-suites.ts`; do not edit.
import { describe, it } from 'vitest';
import { runs } from '../../src/checks/contract-runtime.ts';

describe('models', () => {
  it('MODELS-001, MODELS-002, MODELS-003, MODELS-004, MODELS-005, MODELS-006, MODELS-007, MODELS-009, MODELS-013: GET /v1/models answers {"object":"list","data":[{id,object:"model",created,owned_by}]} with unique ids', runs('models-list-shape'));
  it('MODELS-008: every listed model is accepted by a minimal chat request', runs('models-usable'));
  it('MODELS-010: a chat request naming a never-listed model answers 404 model_not_found', runs('models-unknown'));
  it('MODELS-011, MODELS-012: a model added to or retired from the server appears in or leaves the next list, and a retired one answers 404', runs('models-availability'));
  it('MODELS-014, MODELS-015, MODELS-016, MODELS-017, MODELS-018: GET /v1/models/{id} answers the listed model as {id,object:"model",created,owned_by}, without credentials, and an unknown id 404 model_not_found', runs('models-retrieve'));
});
