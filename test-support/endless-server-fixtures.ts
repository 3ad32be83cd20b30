import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * For the tests of deadlines: a server on 127.0.0.1 whose answers (written by `handler`) may never
 * end. close() destroys the connections it still holds, so it never waits on an endless answer.
 */
export interface EndlessServer {
  /** http://127.0.0.1:PORT */
  root: string;
  close(): Promise<void>;
}

export async function startEndlessServer(handler: RequestListener): Promise<EndlessServer> {
  const sockets = new Set<Socket>();
  const server = createServer(handler);
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    root: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
