import { ExitCode } from '../exit-codes.ts';
import { main, reportError } from './main.ts';

process.once('SIGINT', () => {
  process.stderr.write('\niari: interrupted\n');
  process.exit(ExitCode.interrupted);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportError(error);
  },
);
