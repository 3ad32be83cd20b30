import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseFlags } from '../../src/cli/args.ts';
import { mockFlagSpec } from '../../src/cli/mock-command.ts';
import { loadFlagSpec, planFromFlags } from '../../src/cli/load-flags.ts';

/**
 * deploy/k8s/ checked offline: every object against the Kubernetes OpenAPI schemas (the
 * kubernetes-models package compiles them with ajv; no cluster is contacted), then what a schema
 * cannot see: the iari command lines parse as iari parses them, the Job's shard count matches
 * its completions, the Service reaches the mock's port, the token comes from a Secret.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = join(root, 'deploy/k8s');

type Obj = { apiVersion: string; kind: string; metadata: { name: string }; spec?: any };

function docs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((d) => {
    expect(d.errors, file).toEqual([]);
    return d.toJS() as Obj;
  });
}

/** kubernetes-models' class for an object: `kubernetes-models/<group>/<version>/<Kind>` (core group: `v1/<Kind>`; ESM only since 5). */
async function modelOf(o: Obj): Promise<new (data: unknown) => { validate(): void }> {
  const path = `kubernetes-models/${o.apiVersion}/${o.kind}`;
  const mod = (await import(path)) as Record<string, unknown>;
  const Model = (mod[o.kind] ?? (mod['default'] as Record<string, unknown> | undefined)?.[o.kind] ?? mod['default']) as (new (data: unknown) => { validate(): void }) | undefined;
  if (typeof Model !== 'function') throw new Error(`no model for ${o.apiVersion} ${o.kind}`);
  return Model;
}

async function validate(o: Obj): Promise<string | null> {
  try {
    new (await modelOf(o))(o).validate();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A shell command line as /bin/sh would split it, for the parts the manifests use. */
function shellWords(line: string, env: Record<string, string>): string[] {
  const expanded = line
    .replace(/\s*\|\|.*$/s, '')
    .replace(/\$\{(\w+):\+([^}]*)\}/g, (_m, v: string, alt: string) => (env[v] !== undefined && env[v] !== '' ? alt : ''))
    .replace(/\$\{(\w+)\}|\$(\w+)/g, (_m, a: string | undefined, b: string | undefined) => env[(a ?? b) as string] ?? '');
  const words: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let started = false;
  for (const ch of expanded) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) words.push(cur);
      cur = '';
      started = false;
    } else {
      cur += ch;
      started = true;
    }
  }
  if (started) words.push(cur);
  return words;
}

const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
const all = files.flatMap((f) => docs(f).map((o) => ({ file: f, o })));
const find = (file: string, kind: string, name?: string): Obj => {
  const hit = all.find((x) => x.file === file && x.o.kind === kind && (name === undefined || x.o.metadata.name === name));
  if (hit === undefined) throw new Error(`${file}: no ${kind} ${name ?? ''}`);
  return hit.o;
};
const envOf = (container: any): Record<string, string> => Object.fromEntries((container.env ?? []).filter((e: any) => typeof e.value === 'string').map((e: any) => [e.name, e.value]));

describe('deploy/k8s manifests', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });

  it('K8S: every object in every manifest is valid against the Kubernetes schemas', async () => {
    expect(files.sort()).toEqual(['indexed-job-sidecar.yaml', 'indexed-job.yaml', 'mock-service.yaml']);
    expect(all.length).toBeGreaterThanOrEqual(7);
    for (const { file, o } of all) expect(await validate(o), `${file} ${o.kind} ${o.metadata.name}`).toBeNull();
  });

  // Not caught: a misspelt member (these schemas allow unknown members; the API server's strict
  // field validation would reject it). The command-line checks below catch iari's own flags.
  it('K8S: the validator rejects what the API server would (wrong types, missing required members)', async () => {
    const job = structuredClone(find('indexed-job.yaml', 'Job', 'iari-load-shards'));
    const broken: [string, (j: any) => void][] = [
      ['completions as a string', (j) => (j.spec.completions = 'four')],
      ['backoffLimit as an object', (j) => (j.spec.backoffLimit = { n: 1 })],
      ['no containers', (j) => delete j.spec.template.spec.containers],
      ['env without a name', (j) => delete j.spec.template.spec.containers[0].env[0].name],
      ['resources limits as a list', (j) => (j.spec.template.spec.containers[0].resources.limits = ['1'])],
    ];
    for (const [what, mutate] of broken) {
      const copy = structuredClone(job);
      mutate(copy);
      expect(await validate(copy), what).not.toBeNull();
    }
    const svc = structuredClone(find('mock-service.yaml', 'Service'));
    svc.spec.ports[0].port = 'http';
    expect(await validate(svc)).not.toBeNull();
  });

  it('K8S: the Indexed Job loads the Service URL with the token from a Secret, N shards for N completions, and iari accepts its command line', () => {
    const job = find('indexed-job.yaml', 'Job', 'iari-load-shards');
    expect(job.spec.completionMode).toBe('Indexed');
    const pod = job.spec.template.spec;
    expect(pod.initContainers ?? []).toEqual([]);
    const c = pod.containers[0];
    const token = c.env.find((e: any) => e.name === 'IARI_TOKEN');
    expect(token.valueFrom.secretKeyRef).toEqual({ name: 'iari-token', key: 'token' });
    const env = { ...envOf(c), JOB_COMPLETION_INDEX: '0', IARI_TOKEN: 'k8s-test-token-123456', ORG_ID: 'org-k8s-test-1234' };
    expect(c.command).toEqual(['/bin/sh', '-c']);
    const argv = shellWords(c.args[0], env);
    expect(argv.slice(0, 2)).toEqual(['iari', 'load']);
    const { values } = parseFlags('load', argv.slice(2), loadFlagSpec);
    Object.assign(process.env, { IARI_TOKEN: env.IARI_TOKEN, ORG_ID: env.ORG_ID });
    const plan = planFromFlags(values);
    expect(plan.baseUrl).toBe('http://iari-mock:8080/v1');
    expect(plan.shard).toEqual({ index: 0, count: job.spec.completions });
    expect(plan.connection.headers).toEqual([{ name: 'OpenAI-Organization', value: 'org-k8s-test-1234', source: { env: 'ORG_ID' } }]);
    expect(plan.workloadPlan.spec?.input).toEqual({ kind: 'synthetic', length: { mean: 512, stdev: 64 } });
    expect(plan.durationS).toBeGreaterThan(0);
    // Without the optional org id the header flag disappears and the line still parses.
    delete process.env['ORG_ID'];
    const bare = shellWords(c.args[0], { ...env, ORG_ID: '' });
    expect(bare).not.toContain('--header');
    expect(planFromFlags(parseFlags('load', bare.slice(2), loadFlagSpec).values).connection.headers).toEqual([]);
    // The merge Job waits for exactly the shards the Job writes.
    const merge = find('indexed-job.yaml', 'Job', 'iari-load-merge').spec.template.spec.containers[0].args[0] as string;
    expect(merge).toContain(`for i in ${Array.from({ length: job.spec.completions }, (_, i) => i).join(' ')}; do`);
    expect(c.args[0]).toContain('--report /results/shard-${JOB_COMPLETION_INDEX}');
  });

  it('K8S: the mock Deployment listens on 0.0.0.0 behind a Service that selects it and targets its port; its command line parses', () => {
    const dep = find('mock-service.yaml', 'Deployment');
    const svc = find('mock-service.yaml', 'Service');
    const c = dep.spec.template.spec.containers[0];
    const { values } = parseFlags('mock', c.args.slice(1), mockFlagSpec);
    expect(c.args[0]).toBe('mock');
    expect(values.host).toBe('0.0.0.0');
    expect(c.ports.find((p: any) => p.name === svc.spec.ports[0].targetPort).containerPort).toBe(Number(values.port));
    for (const [k, v] of Object.entries(svc.spec.selector)) expect(dep.spec.template.metadata.labels[k]).toBe(v);
    expect(c.env.find((e: any) => e.name === 'IARI_TOKEN').valueFrom.secretKeyRef.name).toBe('iari-token');
    // The load Job's default target is this Service.
    const target = envOf(find('indexed-job.yaml', 'Job', 'iari-load-shards').spec.template.spec.containers[0]).TARGET_URL;
    expect(target).toBe(`http://${svc.metadata.name}:${svc.spec.ports[0].port}/v1`);
  });

  it('K8S: the sidecar variant keeps the server in the pod on 127.0.0.1 with a probe that runs inside the pod', () => {
    const job = find('indexed-job-sidecar.yaml', 'Job', 'iari-load-sidecar-shards');
    const sidecar = job.spec.template.spec.initContainers[0];
    expect(sidecar.restartPolicy).toBe('Always');
    expect(sidecar.command.slice(0, 2)).toEqual(['iari', 'mock']);
    expect(parseFlags('mock', sidecar.command.slice(2), mockFlagSpec).values.host).toBeUndefined();
    expect(sidecar.readinessProbe.exec.command[0]).toBe('node');
    // The token is the Secret mounted as a file; here a temporary stand-in.
    const tokenFile = join(mkdtempSync(join(tmpdir(), 'iari-k8s-')), 'token');
    writeFileSync(tokenFile, 'k8s-test-token-123456\n');
    const argv = shellWords(job.spec.template.spec.containers[0].args[0], { JOB_COMPLETION_INDEX: '1' }).map((w) => (w === '/secrets/token' ? tokenFile : w));
    expect(job.spec.template.spec.volumes.find((v: any) => v.name === 'token').secret.secretName).toBe('iari-token');
    const plan = planFromFlags(parseFlags('load', argv.slice(2), loadFlagSpec).values);
    expect(plan.baseUrl).toBe('http://127.0.0.1:8080/v1');
    expect(plan.shard).toEqual({ index: 1, count: job.spec.completions });
  });

  it('K8S: every pod runs the one image as a non-root user', () => {
    const images = new Set<string>();
    for (const { file, o } of all) {
      const pod = o.kind === 'Job' || o.kind === 'Deployment' ? o.spec.template.spec : null;
      if (pod === null) continue;
      for (const c of [...(pod.initContainers ?? []), ...pod.containers]) images.add(c.image);
      if (file !== 'indexed-job-sidecar.yaml') expect(pod.securityContext?.runAsNonRoot, `${file} ${o.metadata.name}`).toBe(true);
    }
    expect([...images]).toEqual(['registry.example/iari:0.1.0']);
  });

  it('K8S: the Dockerfile builds on node 24 slim (the reference runtime), installs the npm pack tarball with production dependencies only, and runs as the non-root node user', () => {
    const text = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const from = [...text.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(from.length).toBe(2);
    expect(from.every((f) => f === 'node:24-slim')).toBe(true);
    expect(text).toMatch(/^RUN npm pack /m);
    expect(text).toMatch(/^RUN npm install --global --omit=dev .*\/tmp\/iari\.tgz/m);
    const user = [...text.matchAll(/^USER (\S+)/gm)].map((m) => m[1]);
    expect(user.at(-1)).toBe('node');
    expect(text.lastIndexOf('USER node')).toBeGreaterThan(text.lastIndexOf('RUN '));
    expect(text).toMatch(/^ENTRYPOINT \["iari"\]/m);
  });
});
