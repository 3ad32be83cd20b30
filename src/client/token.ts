import { readFileSync } from 'node:fs';
import { HarnessError, HarnessErrorCode } from '../errors.ts';

/** Secrets shorter than this are not scrubbed from reports (they would shred ordinary text). */
export const MIN_SECRET_LENGTH = 6;

/**
 * Every report line is scrubbed of the token; a token this short would also match ordinary text
 * (a 1-character token would replace every such character), so it cannot be kept out safely.
 */
export const MIN_TOKEN_LENGTH = 8;

export interface TokenSource {
  /** Environment variable holding the token (default IARI_TOKEN). */
  tokenEnv?: string | undefined;
  /** File whose first line is the token. */
  tokenFile?: string | undefined;
}

/** The token of a run against a server named without one (iari load): its requests carry no Authorization. */
export const NO_TOKEN = '';

/**
 * The key handed to a client library in a run without a token (the libraries want one); the
 * checks' client transport takes its Authorization header off before the request leaves.
 */
export const NO_TOKEN_STAND_IN = 'iari-no-token-stand-in';

/**
 * The token of `iari test`/`iari load` against a named server: with no source named (--token-env,
 * --token-file) and $IARI_TOKEN unset, none (NO_TOKEN): issue 43, "A token is required even when
 * the server has no auth". A named source must hold one.
 */
export function readTokenOrNone(command: string, source: TokenSource, env: NodeJS.ProcessEnv = process.env): string {
  const named = source.tokenEnv !== undefined || source.tokenFile !== undefined;
  return named || (env['IARI_TOKEN']?.trim() ?? '') !== '' ? readToken(command, source, env) : NO_TOKEN;
}

/**
 * The bearer token for a server named with --base-url, from the environment or a file; never a
 * flag value. Spec, Authentication 4: "The token is a secret. It is not to be placed in prompts,
 * repositories, client-side bundles, logs, screenshots or support messages".
 */
export function readToken(command: string, source: TokenSource, env: NodeJS.ProcessEnv = process.env): string {
  if (source.tokenEnv !== undefined && source.tokenFile !== undefined) {
    throw new HarnessError(HarnessErrorCode.USAGE, `${command}: give --token-env or --token-file, not both`);
  }
  if (source.tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(source.tokenFile, 'utf8');
    } catch (error) {
      throw new HarnessError(HarnessErrorCode.INPUT_UNREADABLE, `${command}: cannot read --token-file: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    const token = (text.split(/\r?\n/)[0] ?? '').trim();
    if (token === '') throw new HarnessError(HarnessErrorCode.TOKEN_MISSING, `${command}: --token-file is empty`);
    return checkToken(command, token);
  }
  const name = source.tokenEnv ?? 'IARI_TOKEN';
  const token = env[name]?.trim();
  if (token === undefined || token === '') {
    throw new HarnessError(HarnessErrorCode.TOKEN_MISSING, `${command}: no token in $${name}`, {
      hint: 'export the account token in that variable (or use --token-file); it is never accepted as a flag value',
    });
  }
  return checkToken(command, token);
}

/** A token given directly (the library): trimmed, refused when empty or too short to keep out of reports. */
export function checkToken(command: string, token: string | undefined): string {
  const t = token?.trim() ?? '';
  if (t === '') throw new HarnessError(HarnessErrorCode.TOKEN_MISSING, `${command}: a base URL needs a token`);
  if (t.length < MIN_TOKEN_LENGTH) {
    throw new HarnessError(HarnessErrorCode.CONFIG_INVALID, `${command}: the bearer token has ${t.length} characters; at least ${MIN_TOKEN_LENGTH} are needed to keep it out of reports`, {
      hint: 'use a real token; the bundled mock generates one when no --base-url is given',
    });
  }
  return t;
}
