import type { CheckContext } from '../context/check-types.ts';
import { sharedRequest } from '../context/shared-requests.ts';
import { checkExchange, type CheckedStream } from '../wire/stream-findings.ts';
import { basicStream, emptyOptionsStream, twoChoiceStream, usageStream } from './common-requests.ts';
import { toolStream } from './tool-requests.ts';
import { offers } from './capability-probes.ts';

/** The run's successful streams (plain, include_usage, empty stream_options, forced tool, n=2), checked once. */
export const checkedStreams = sharedRequest('streams:checked', async (ctx: CheckContext): Promise<CheckedStream[]> => {
  // stream_options and n are capabilities (capabilities.ts): their streams are judged where the server offers them.
  const usage = await offers(ctx, 'stream-usage');
  const n = await offers(ctx, 'n');
  const specs = [
    { name: 'plain stream', get: basicStream, opts: {} },
    ...(usage ? [{ name: 'stream with include_usage', get: usageStream, opts: { includeUsage: true } }, { name: 'stream with stream_options {}', get: emptyOptionsStream, opts: {} }] : []),
    { name: 'streamed forced tool call', get: toolStream, opts: {} },
    ...(n ? [{ name: 'stream with n=2', get: twoChoiceStream, opts: { n: 2 } }] : []),
  ];
  const out: CheckedStream[] = [];
  for (const s of specs) {
    const ex = await s.get(ctx);
    out.push({ name: s.name, ex, result: checkExchange(ex, s.opts) });
  }
  return out;
});

