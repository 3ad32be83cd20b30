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

/** Where the help text starts, and what a head too long for it does: `after` (3 spaces, iari load) or `above` (its own line, iari test). */
export interface HelpLayout {
  column: number;
  longHead: 'after' | 'above';
}

const LOAD_LAYOUT: HelpLayout = { column: 25, longHead: 'after' };

/** `  --flag ARG` padded to the column (or, when longer, as the layout says), continuation lines at the column. */
export function renderSections(sections: readonly FlagSection[], layout: HelpLayout = LOAD_LAYOUT): string {
  const column = layout.column;
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
      if (layout.longHead === 'above' && head.length > column - 2) out.push(head, `${' '.repeat(column)}${first}`);
      else out.push(`${head.length < column ? head.padEnd(column) : `${head}   `}${first}`);
      out.push(...rest.map((l) => `${' '.repeat(column)}${l}`));
    }
  }
  return `${out.join('\n')}\n`;
}

/** Every flag a table documents. */
export function documentedFlags(sections: readonly FlagSection[]): string[] {
  return sections.flatMap((s) => s.rows.flatMap((r) => ('flags' in r ? [...r.flags] : [])));
}
