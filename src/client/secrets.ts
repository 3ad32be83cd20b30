/**
 * The secrets of one client (the run's token, a second account's, pieces of one a check sends on
 * purpose) and the shell text that stands for each: what every message, curl line and report of
 * that client writes in their place (README, Secrets: the bearer token never appears).
 */
export class Secrets {
  /** Secret values and their placeholders, longest first (a piece never leaves the rest of a longer one). */
  readonly #pairs: [string, string][] = [];

  /** Registers a secret (or a piece of one) to be written as `placeholder` wherever it would appear; an empty one is ignored. */
  register(value: string, placeholder: string): void {
    if (value.length === 0) return;
    this.#pairs.push([value, placeholder]);
    this.#pairs.sort((a, b) => b[0].length - a[0].length);
  }

  /** The registered secrets with the shell variable written for each, longest first (for curl lines). */
  get pairs(): readonly (readonly [string, string])[] {
    return this.#pairs;
  }

  /** `s` with every registered secret replaced by its placeholder (`$IARI_TOKEN`...). */
  redact(s: string): string {
    let out = s;
    for (const [value, placeholder] of this.#pairs) out = out.split(value).join(placeholder);
    return out;
  }
}
