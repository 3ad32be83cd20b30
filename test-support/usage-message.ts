import { HarnessError, HarnessErrorCode } from '../src/errors.ts';

/** The message of the usage error (exit 2) `run` throws, `'accepted'` when it throws none; any other error is rethrown. */
export function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof HarnessError && error.code === HarnessErrorCode.USAGE) return error.message;
    throw error;
  }
  return 'accepted';
}
