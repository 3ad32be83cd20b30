import { HarnessError, HarnessErrorCode } from '../errors.ts';

export async function run(_argv: string[]): Promise<number> {
  throw new HarnessError(HarnessErrorCode.USAGE, 'iari report: not built yet');
}
