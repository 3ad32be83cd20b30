import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRegistryYaml, prebuiltDocument, writePrebuiltDocument } from './registry-document.ts';
import { DEFAULT_REGISTRY_PATH } from './requirements-registry.ts';

const dir = mkdtempSync(join(tmpdir(), 'iari-registry-document-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the registry parsed at build time (issue 41)', () => {
  const yamlPath = join(dir, 'requirements.yaml');
  const parsedPath = join(dir, 'requirements.parsed.json');
  const text = readFileSync(DEFAULT_REGISTRY_PATH, 'utf8');
  writeFileSync(yamlPath, text);
  writePrebuiltDocument(yamlPath, parsedPath);

  it('is the document the YAML parser makes of the same text', () => {
    expect(prebuiltDocument(text, parsedPath)).toEqual(parseRegistryYaml(text));
  });

  it('is taken for exactly the text it was built from', () => {
    // A document that differs from the YAML's parse, under the same hash: it is what a run gets.
    const saved = JSON.parse(readFileSync(parsedPath, 'utf8')) as { sha256: string };
    const marked = join(dir, 'marked.json');
    writeFileSync(marked, JSON.stringify({ sha256: saved.sha256, document: { requirements: [], marked: true } }));
    expect(prebuiltDocument(text, marked)).toEqual({ requirements: [], marked: true });
  });

  it('is not taken for an edited registry, another file, or no file', () => {
    expect(prebuiltDocument(`${text}\n# edited\n`, parsedPath)).toBeUndefined();
    expect(prebuiltDocument('requirements: []\n', parsedPath)).toBeUndefined();
    expect(prebuiltDocument(text, join(dir, 'absent.json'))).toBeUndefined();
    writeFileSync(join(dir, 'broken.json'), '{"sha256":');
    expect(prebuiltDocument(text, join(dir, 'broken.json'))).toBeUndefined();
  });

  it('is not written for YAML that does not parse (the build fails instead)', () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'requirements:\n  - id: A\n    id: B\n');
    expect(() => writePrebuiltDocument(bad, join(dir, 'bad.json'))).toThrow();
  });
});
