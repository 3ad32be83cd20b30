import type { Dispatcher } from 'undici';
import type { ConnectionWatch, SentOn } from './connection-watch.ts';

/**
 * What one request sent through undici hears, in order: the controller (abort, pause, resume) as
 * its head is about to be written, the connection it went out on (with a ConnectionWatch), the
 * answer's head, each read of its body, then its end or its error (exactly one).
 */
export interface RequestHooks {
  start?(controller: Dispatcher.DispatchController): void;
  sentOn?(on: SentOn): void;
  head?(controller: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void;
  data(controller: Dispatcher.DispatchController, chunk: Buffer): void;
  end(): void;
  error(err: Error): void;
}

/**
 * The one undici request handler of the harness (the load engine's requests, the checks' requests
 * on a dispatcher of their own): undici's DispatchHandler over a request's hooks. The same handler
 * may be dispatched again (a connection reuse race's retry).
 */
export function requestHandler(hooks: RequestHooks, watch?: ConnectionWatch): Dispatcher.DispatchHandler {
  const sentOn = hooks.sentOn;
  return {
    onRequestStart(c) {
      if (watch !== undefined && sentOn !== undefined) watch.nextHead(sentOn);
      hooks.start?.(c);
    },
    onResponseStart(c, status, headers) {
      hooks.head?.(c, status, headers as Record<string, string | string[] | undefined>);
    },
    onResponseData(c, chunk) {
      hooks.data(c, chunk);
    },
    onResponseEnd() {
      hooks.end();
    },
    onResponseError(_c, err) {
      hooks.error(err);
    },
  };
}
