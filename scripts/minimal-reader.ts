/**
 * The ceiling's reference reader (issue 41): undici with the given connections, each event of a
 * streamed chat completion split out and JSON.parse'd, nothing else (no timing, checks, records).
 * iari's rate against it is what iari's own work costs (scripts/bench-load.ts, scripts/profile-ceiling.ts).
 */
import { Pool } from 'undici';
import { CHAT_COMPLETIONS_ROUTE } from '../src/protocols/chat-completions/chat-request.ts';
import type { MockHandle } from './fidelity-child-mock.ts';

/** Reads streams back to back on `streams` connections for `durationS`; returns the events read. */
export async function minimalRead(m: MockHandle, streams: number, durationS: number): Promise<number> {
  const body = JSON.stringify({ model: m.model, messages: [{ role: 'user', content: 'go' }], max_tokens: 4096, stream: true, stream_options: { include_usage: true } });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${m.token}` };
  const url = new URL(m.url);
  const pool = new Pool(url.origin, { connections: streams, pipelining: 1 });
  const stopAt = Date.now() + durationS * 1000;
  let events = 0;
  try {
    await Promise.all(
      Array.from({ length: streams }, async () => {
        while (Date.now() < stopAt) {
          const r = await pool.request({ method: 'POST', path: url.pathname + CHAT_COMPLETIONS_ROUTE, headers, body });
          let rest = '';
          for await (const piece of r.body) {
            rest += (piece as Buffer).toString('utf8');
            let cut = rest.indexOf('\n\n');
            while (cut !== -1) {
              const block = rest.slice(0, cut);
              rest = rest.slice(cut + 2);
              if (block.startsWith('data:')) {
                const data = block.slice(5).trimStart();
                if (data !== '[DONE]') JSON.parse(data);
                events++;
              }
              cut = rest.indexOf('\n\n');
            }
          }
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return events;
}
