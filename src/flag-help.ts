// Help text rendered from tables of flags: each row is a flag (or a note) and its help lines, so a
// command's --help comes from one table that a test can hold to the flags the command parses.

export interface FlagRow {
  /** As shown: the flag and its argument, e.g. `--rate R`, `--stream | --no-stream`. */
  head: string;
  /** The flags the row documents, without dashes. */
  flags: readonly string[];
  help: readonly string[];
}

export interface NoteRow {
  note: readonly string[];
}

export interface FlagSection {
  title: string;
  rows: readonly (FlagRow | NoteRow)[];
}

const COLUMN = 25;

/** `  --flag ARG` padded to column 25 (3 spaces when longer), continuation lines at column 25. */
export function renderSections(sections: readonly FlagSection[]): string {
  const out: string[] = [];
  for (const s of sections) {
    out.push(s.title);
    for (const row of s.rows) {
      if ('note' in row) {
        out.push(...row.note.map((l) => `  ${l}`));
        continue;
      }
      const head = `  ${row.head}`;
      const [first = '', ...rest] = row.help;
      out.push(`${head.length < COLUMN ? head.padEnd(COLUMN) : `${head}   `}${first}`);
      out.push(...rest.map((l) => `${' '.repeat(COLUMN)}${l}`));
    }
  }
  return `${out.join('\n')}\n`;
}

/** Every flag a table documents. */
export function documentedFlags(sections: readonly FlagSection[]): string[] {
  return sections.flatMap((s) => s.rows.flatMap((r) => ('flags' in r ? [...r.flags] : [])));
}
