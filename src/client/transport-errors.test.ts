import { describe, expect, it } from 'vitest';
import { errorCodeOf, isReset, isTlsFailure, transportClass } from './transport-errors.ts';

const withCode = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe('transport errors', () => {
  it('finds the code through causes and an AggregateError, as undici and Node nest them', () => {
    expect(errorCodeOf(new Error('fetch failed', { cause: withCode('ECONNREFUSED') }))).toBe('ECONNREFUSED');
    expect(errorCodeOf(new AggregateError([withCode('ECONNREFUSED')], 'connect'))).toBe('ECONNREFUSED');
    expect(errorCodeOf(new Error('plain'))).toBeUndefined();
  });

  it('names each failure by one class wherever it happens', () => {
    expect(transportClass(withCode('UND_ERR_HEADERS_TIMEOUT'))).toBe('timeout');
    expect(transportClass(withCode('IARI_REQUEST_DEADLINE'))).toBe('timeout');
    expect(transportClass(new Error('fetch failed', { cause: withCode('ECONNREFUSED') }))).toBe('connect');
    expect(transportClass(withCode('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe('tls');
    expect(transportClass(withCode('UND_ERR_SOCKET', 'other side closed'))).toBe('reset');
    expect(transportClass(withCode('UND_ERR_RES_CONTENT_LENGTH_MISMATCH'))).toBe('reset');
    expect(transportClass(withCode('HPE_INVALID_CHUNK_SIZE'))).toBe('framing');
    expect(transportClass(Object.assign(new Error('bad'), { name: 'HTTPParserError' }))).toBe('framing');
    expect(transportClass(new Error('socket hang up'))).toBe('reset');
    expect(transportClass(new Error('something else'))).toBe('other');
    expect(isTlsFailure(withCode('CERT_HAS_EXPIRED'))).toBe(true);
    expect(isReset(withCode('ECONNRESET'))).toBe(true);
    expect(isReset(withCode('ECONNREFUSED'))).toBe(false);
  });
});
