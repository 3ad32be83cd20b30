// What holds the one-module-per-API boundary, read from the source itself (no grep for a literal):
// the imports of every product file, and which product files read chat completions wire fields.
// Used by src/protocols/protocol-boundary.test.ts and scripts/count-chat-wire.ts (which can run
// it against any checkout, so a count before and after a change is made the same way).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
// TypeScript 7 (the native compiler) has no compiler API; its parser is TypeScript 5's (the
// typescript-5 alias openapi-typescript also uses), which reads the same syntax.
import ts from 'typescript-5';

/** Product files: src/ and mock-server/, TypeScript, tests excluded (test-support/, suites/ and scripts/ are not shipped). */
export function productFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
          const path = `${dir}/${e.name}`;
          if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(path);
          return /\.(ts|mts)$/.test(e.name) && !/\.test\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
        })
      : [];
  return [...walk('src'), ...walk('mock-server')].sort();
}

function parse(root: string, file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

const importMemo = new Map<string, string[]>();

/** The product files a file imports (static and dynamic imports, `export ... from`, `import('x')` types), as paths from the root. */
export function importsOf(root: string, file: string): string[] {
  const key = `${root}\0${file}`;
  const known = importMemo.get(key);
  if (known !== undefined) return known;
  const sf = parse(root, file);
  const out = new Set<string>();
  const add = (spec: string): void => {
    if (!spec.startsWith('.')) return;
    out.add(relative(root, resolve(root, dirname(file), spec)).split('\\').join('/'));
  };
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier !== undefined && ts.isStringLiteral(n.moduleSpecifier)) add(n.moduleSpecifier.text);
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] !== undefined && ts.isStringLiteral(n.arguments[0])) add(n.arguments[0].text);
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) add(n.argument.literal.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  const list = [...out];
  importMemo.set(key, list);
  return list;
}

/** The API folder a path is in (`src/protocols/<api>/...`), if any. */
export function apiOf(path: string): string | undefined {
  return /^src\/protocols\/([^/]+)\//.exec(path)?.[1];
}

/** The contract and the list: what any consumer may import from src/protocols/. */
export const CONTRACT = ['src/protocols/protocol.ts', 'src/protocols/protocol-mock.ts', 'src/protocols/registry.ts'];

export interface BoundaryBreach {
  file: string;
  imports: string;
  why: string;
}

/**
 * Every import that crosses the boundary: an API folder importing another API's; a consumer outside
 * src/protocols/ importing an API's folder, unless it is one of `apiConsumers` (a file about one API
 * by nature, named with its API) importing that API only; the contract importing an API.
 */
export function boundaryBreaches(root: string, apiConsumers: Readonly<Record<string, string>>): BoundaryBreach[] {
  const out: BoundaryBreach[] = [];
  for (const file of productFiles(root)) {
    const own = apiOf(file);
    for (const imported of importsOf(root, file)) {
      const api = apiOf(imported);
      if (!imported.startsWith('src/protocols/')) continue;
      if (own !== undefined) {
        if (api !== undefined && api !== own) out.push({ file, imports: imported, why: `the ${own} API imports the ${api} API's internals` });
        continue;
      }
      if (file.startsWith('src/protocols/')) {
        // The contract imports no API; the list imports each API's protocol object, nothing else.
        const allowed = file === 'src/protocols/registry.ts' && api !== undefined && imported === `src/protocols/${api}/${api}-protocol.ts`;
        if (api !== undefined && !allowed) out.push({ file, imports: imported, why: 'the contract imports an API' });
        continue;
      }
      if (CONTRACT.includes(imported) || api === undefined) continue;
      if (apiConsumers[file] !== api) out.push({ file, imports: imported, why: apiConsumers[file] === undefined ? `a consumer imports the ${api} API's internals (consumers import the contract and the list)` : `a consumer of ${apiConsumers[file]} imports the ${api} API` });
    }
  }
  return out;
}

/**
 * Chat completions wire fields: member names and literals only chat completions uses (its response,
 * its stream, its request). Not `delta` (counters have deltas too; a chat delta is reached through
 * `choices`) nor `completion_tokens` (the seed's usage rows of /v1/me/usage use it too).
 */
export const CHAT_WIRE_FIELDS = ['choices', 'finish_reason', 'tool_calls', 'tool_call_id', 'max_completion_tokens', 'stream_options', 'include_usage', 'reasoning_content', 'chat.completion', 'chat.completion.chunk', '/chat/completions'];

const FIELD_IN_TEXT = new RegExp(`(?<![A-Za-z0-9_.])(?:${CHAT_WIRE_FIELDS.map((f) => f.replace(/[./]/g, (c) => `\\${c}`)).join('|')})(?![A-Za-z0-9_])`);

/**
 * Whether a file reads chat wire fields: one of CHAT_WIRE_FIELDS as a property name (`x.choices`,
 * `{ choices: ... }`, `{ choices } =`, `x['choices']`) or inside a string or template literal
 * (a whole word). Comments do not count; a local variable that happens to be named `delta` does not.
 */
export function readsChatWire(root: string, file: string): boolean {
  const sf = parse(root, file);
  const names = new Set(CHAT_WIRE_FIELDS);
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isPropertyAccessExpression(n) && names.has(n.name.text)) found = true;
    else if ((ts.isPropertyAssignment(n) || ts.isPropertySignature(n) || ts.isShorthandPropertyAssignment(n) || ts.isBindingElement(n)) && n.name !== undefined && ts.isIdentifier(n.name) && names.has(n.name.text) && (!ts.isBindingElement(n) || n.propertyName !== undefined || ts.isObjectBindingPattern(n.parent))) found = true;
    else if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) && FIELD_IN_TEXT.test(n.text)) found = true;
    if (!found) ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

/** The product files outside src/protocols/chat-completions/ that read chat wire fields, by room (src/checks, mock-server, src/load, ...). */
export function chatWireReaders(root: string): { files: string[]; byRoom: Record<string, number> } {
  const files = productFiles(root).filter((f) => !f.startsWith('src/protocols/chat-completions/') && readsChatWire(root, f));
  const byRoom: Record<string, number> = {};
  for (const f of files) {
    const room = f.startsWith('mock-server/') ? 'mock-server' : f.split('/').slice(0, 2).join('/');
    byRoom[room] = (byRoom[room] ?? 0) + 1;
  }
  return { files, byRoom };
}
