/**
 * The chat completions route (spec, Endpoints: POST /v1/chat/completions): relative to a base URL
 * that ends in /v1 (what the load engines and client libraries are given), and as the whole path
 * (what the checks send from the server's root). The one place the harness names it.
 */
export const CHAT_COMPLETIONS_ROUTE = '/chat/completions';
export const CHAT_COMPLETIONS_PATH = `/v1${CHAT_COMPLETIONS_ROUTE}`;
