// The words of a usage error about one flag or option's value, for every command and the library
// alike: `--rate must be a number from 0.01 to 100000, got "0"`, `--grade must be must, should or
// all, got "x"`. The caller prefixes who speaks (`iari load: `, `runLoad: `).

/** A numeric range; `aboveMin`: the minimum itself is refused, (min, max]. */
export interface NumberRule {
  min: number;
  max: number;
  integer: boolean;
  aboveMin?: boolean;
}

export function numberMessage(label: string, rule: NumberRule, got: string): string {
  const range = rule.aboveMin === true ? `a number in (${rule.min}, ${rule.max}]` : `${rule.integer ? 'an integer' : 'a number'} from ${rule.min} to ${rule.max}`;
  return `${label} must be ${range}, got "${got}"`;
}

export function choiceMessage(label: string, choices: readonly string[], got: string): string {
  const list = choices.length < 2 ? choices.join('') : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
  return `${label} must be ${list}, got "${got}"`;
}
