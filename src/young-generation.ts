import { setFlagsFromString } from 'node:v8';

/**
 * Stops V8's young generation from growing further in this process: it keeps the size start-up
 * gave it. V8 doubles each semi-space after scavenges that keep much alive, up to a limit it
 * derives from the machine's memory: 64 MiB a semi-space (128 MiB committed) on a 24 GiB machine.
 * `iari test` reached it while the client libraries were imported and held it to the end, about 95
 * MiB of resident memory that bought no CPU: kept at the 8 MiB a semi-space it has when the command
 * starts, the run's peak fell from 341 to 246 MiB and its CPU did not rise (farm-bench -n 7 on the
 * bundled mock, A/B 0.95, pairs 0.88-1.01, load average 18-23; issue 41). The growth factor is read at each growth
 * (heap/new-spaces.cc, SemiSpaceNewSpace::Grow), so setting it at run time takes effect, as
 * collect-garbage.ts's --expose-gc does; young-generation.test.ts checks that it still does.
 * For the iari CLI only: a library caller's process keeps V8's defaults.
 */
export function keepYoungGenerationSize(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
