import { readFileSync } from 'node:fs';
import { ExitCode } from '../exit-codes.ts';
import { codeUrl, packageVersion } from '../package-root.ts';
import { HarnessError, HarnessErrorCode, isHarnessError } from '../errors.ts';

type CommandModule = { run(argv: string[]): Promise<number> };

const commands: Record<string, () => Promise<CommandModule>> = {
  start: () => import('./start-command.ts'),
  test: () => import('./test-command.ts'),
  load: () => import('./load-command.ts'),
  mock: () => import('./mock-command.ts'),
  receipts: () => import('./receipts-command.ts'),
  requirements: () => import('./requirements-command.ts'),
  report: () => import('./report-command.ts'),
};

export function helpText(): string {
  return readFileSync(codeUrl('src/cli/help.txt'), 'utf8');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  // `iari help test` is `iari test --help`: the help of the command named.
  if (name === 'help' && rest[0] !== undefined && rest[0] in commands) return (await commands[rest[0]]!()).run(['--help']);
  if (name === 'help' && rest[0] !== undefined) {
    throw new HarnessError(HarnessErrorCode.UNKNOWN_COMMAND, `help: unknown command "${rest[0]}"`, { hint: `commands: ${Object.keys(commands).join(', ')}` });
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(helpText());
    return name === undefined ? ExitCode.usage : ExitCode.ok;
  }
  if (name === '--version') {
    process.stdout.write(`${packageVersion()}\n`);
    return ExitCode.ok;
  }
  const load = commands[name];
  if (load === undefined) {
    throw new HarnessError(HarnessErrorCode.UNKNOWN_COMMAND, `unknown command "${name}"`, {
      hint: `commands: ${Object.keys(commands).join(', ')}`,
    });
  }
  const mod = await load();
  return mod.run(rest);
}

export function reportError(error: unknown): number {
  if (isHarnessError(error)) {
    // A message that already names its command (`iari load: …`) is printed as it is, never `iari: iari load: …`.
    process.stderr.write(`${/^iari\b/.test(error.message) ? '' : 'iari: '}${error.message} [${error.code}]\n`);
    if (error.hint !== undefined) process.stderr.write(`hint: ${error.hint}\n`);
    return error.exitCode;
  }
  process.stderr.write(`iari: internal error\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return ExitCode.usage;
}
