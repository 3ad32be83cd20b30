// Counts the product files (src/, mock-server/; tests excluded) outside src/protocols/chat-completions/
// that read chat completions wire fields (test-support/protocol-boundary.ts says what counts), in
// the checkout given (default this one): `npx tsx scripts/count-chat-wire.ts [ROOT] [--list]`.
// Run it on two checkouts to compare a count before and after a change the same way.
import { resolve } from 'node:path';
import { chatWireReaders, CHAT_WIRE_FIELDS } from '../test-support/protocol-boundary.ts';

const args = process.argv.slice(2);
const root = resolve(args.find((a) => !a.startsWith('--')) ?? '.');
const { files, byRoom } = chatWireReaders(root);
console.log(`${root}: ${files.length} product files outside src/protocols/chat-completions/ read chat wire fields (${CHAT_WIRE_FIELDS.join(', ')})`);
for (const [room, n] of Object.entries(byRoom).sort((a, b) => b[1] - a[1])) console.log(`  ${room}: ${n}`);
if (args.includes('--list')) for (const f of files) console.log(`    ${f}`);
