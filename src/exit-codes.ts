/** Process exit codes of every iari command (documented in README.md and `iari --help`). */
export const ExitCode = {
  ok: 0,
  conformanceFailed: 1,
  usage: 2,
  thresholdBreached: 3,
  /** iari report compare: a gate could neither trip nor hold (--inconclusive pass opts out). */
  inconclusive: 4,
  interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
