import { ExitCode } from './exit-codes.ts';

/**
 * The closed set of harness error codes. A HarnessError is a problem with how iari was
 * asked to run (arguments, config, unreadable input), never a verdict on the server under test:
 * those are check results and receipt findings.
 */
export const HarnessErrorCode = {
  USAGE: 'IARI_USAGE',
  UNKNOWN_COMMAND: 'IARI_UNKNOWN_COMMAND',
  CONFIG_INVALID: 'IARI_CONFIG_INVALID',
  SPEC_INVALID: 'IARI_SPEC_INVALID',
  REGISTRY_INVALID: 'IARI_REGISTRY_INVALID',
  UNKNOWN_REQUIREMENT: 'IARI_UNKNOWN_REQUIREMENT',
  TOKEN_MISSING: 'IARI_TOKEN_MISSING',
  INPUT_UNREADABLE: 'IARI_INPUT_UNREADABLE',
  /** A run's file could not be written (requests.ndjson streamed during a load run: disk full, permissions). */
  REPORT_UNWRITABLE: 'IARI_REPORT_UNWRITABLE',
  THRESHOLD_INVALID: 'IARI_THRESHOLD_INVALID',
  /** The test guard IARI_LOOPBACK_ONLY=1 refused a target or proxy that is not loopback. */
  TARGET_BLOCKED: 'IARI_TARGET_BLOCKED',
  /** The server (or its proxy) refused or failed the connection: refused, DNS, TLS trust (src/client/reachable.ts). */
  TARGET_UNREACHABLE: 'IARI_TARGET_UNREACHABLE',
  FAULT_UNKNOWN: 'IARI_FAULT_UNKNOWN',
  INTERRUPTED: 'IARI_INTERRUPTED',
  /** A coordinated run could not start or go on: a shard never registered, the coordinator refused or was not there (src/load/coordination/). */
  COORDINATION_FAILED: 'IARI_COORDINATION_FAILED',
  INTERNAL: 'IARI_INTERNAL',
} as const;

export type HarnessErrorCode = (typeof HarnessErrorCode)[keyof typeof HarnessErrorCode];

const exitCodeOf: Record<HarnessErrorCode, ExitCode> = {
  IARI_USAGE: ExitCode.usage,
  IARI_UNKNOWN_COMMAND: ExitCode.usage,
  IARI_CONFIG_INVALID: ExitCode.usage,
  IARI_SPEC_INVALID: ExitCode.usage,
  IARI_REGISTRY_INVALID: ExitCode.usage,
  IARI_UNKNOWN_REQUIREMENT: ExitCode.usage,
  IARI_TOKEN_MISSING: ExitCode.usage,
  IARI_INPUT_UNREADABLE: ExitCode.usage,
  IARI_REPORT_UNWRITABLE: ExitCode.usage,
  IARI_THRESHOLD_INVALID: ExitCode.usage,
  IARI_TARGET_BLOCKED: ExitCode.usage,
  IARI_TARGET_UNREACHABLE: ExitCode.usage,
  IARI_FAULT_UNKNOWN: ExitCode.usage,
  IARI_INTERRUPTED: ExitCode.interrupted,
  IARI_COORDINATION_FAILED: ExitCode.usage,
  IARI_INTERNAL: ExitCode.conformanceFailed,
};

export class HarnessError extends Error {
  override readonly name = 'HarnessError';
  readonly code: HarnessErrorCode;
  readonly hint: string | undefined;

  constructor(code: HarnessErrorCode, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
  }

  get exitCode(): ExitCode {
    return exitCodeOf[this.code];
  }
}

export function isHarnessError(value: unknown): value is HarnessError {
  return value instanceof HarnessError;
}
