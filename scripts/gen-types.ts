// `npm run gen:types [SPEC] [OUT]`: src/generated/api.d.ts from spec/openapi.yaml, by openapi-typescript's
// own CLI. openapi-typescript builds its output with the TypeScript compiler API (ts.factory, the
// printer), which TypeScript 7 no longer ships (its package is the native compiler and a version
// stub): the generator is given TypeScript 5 (the `typescript-5` alias devDependency) by a resolve
// hook that applies to openapi-typescript's own imports only; the rest of the project, the type
// check and the build use TypeScript 7.
import { registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';
import { packageBin } from './package-bin.ts';

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/') === true) return next('typescript-5', context);
    return next(specifier, context);
  },
});

const [spec = 'spec/openapi.yaml', out = 'src/generated/api.d.ts'] = process.argv.slice(2);
const cli = packageBin('openapi-typescript', 'openapi-typescript');
process.argv = [process.argv[0] ?? process.execPath, cli, spec, '-o', out];
await import(pathToFileURL(cli).href);
