import { ExitCode } from '../exit-codes.ts';
import { main, reportError } from './main.ts';
import { quietClientLibraries } from './quiet-clients.ts';

quietClientLibraries(process.env, globalThis as { AI_SDK_LOG_WARNINGS?: unknown });

// A command that can stop cleanly (write partial reports, close its mock) adds its own SIGINT
// listener; then the first Ctrl-C is left to it and a second one quits at once.
let interrupts = 0;
process.on('SIGINT', () => {
  interrupts += 1;
  process.exitCode = ExitCode.interrupted;
  if (interrupts > 1 || process.listenerCount('SIGINT') === 1) {
    process.stderr.write('\niari: interrupted\n');
    process.exit(ExitCode.interrupted);
  }
  process.stderr.write('\niari: interrupted, finishing up (Ctrl-C again to quit now)\n');
});

// A reader that stops early (`iari mock --list-faults | head`) closes the pipe: exit quietly, as
// command-line tools do on a broken pipe, instead of printing an EPIPE stack.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok);
    throw error;
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = interrupts > 0 ? ExitCode.interrupted : code;
  },
  (error: unknown) => {
    process.exitCode = reportError(error);
  },
);
