import { ensureLlamaServer } from '../../test-support/engines/llama-server-build.ts';

// `npx tsx scripts/engines/build-llama-server.ts`: build (or find) the engines tier's llama-server
// and print where it is. `.ci/run` calls it before the tests so the build time is printed apart.
ensureLlamaServer({ say: (line) => console.error(`llama-server: ${line}`) }).then(
  (build) => console.log(JSON.stringify(build, null, 2)),
  (error: unknown) => {
    console.error((error as Error).message);
    process.exitCode = 1;
  },
);
