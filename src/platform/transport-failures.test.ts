import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { transportFailureOf } from './transport-failures.ts';

const socketError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:9`), { code });

describe('transportFailureOf', () => {
  it("reads undici's fetch failure by its cause's socket code", () => {
    const failed = (code: string) => new TypeError('fetch failed', { cause: socketError(code) });
    assert.deepEqual(transportFailureOf(failed('ECONNREFUSED')), { failure: 'refused', code: 'ECONNREFUSED' });
    assert.deepEqual(transportFailureOf(failed('ECONNRESET')), { failure: 'reset', code: 'ECONNRESET' });
    assert.deepEqual(transportFailureOf(failed('EAI_AGAIN')), { failure: 'dns', code: 'EAI_AGAIN' });
    assert.deepEqual(transportFailureOf(failed('UND_ERR_CONNECT_TIMEOUT')), {
      failure: 'timeout',
      code: 'UND_ERR_CONNECT_TIMEOUT',
    });
  });

  it('reads a connection tried on several addresses, a bound that ran out, and the code in a message', () => {
    const both = new AggregateError([socketError('ECONNREFUSED'), socketError('ECONNREFUSED')]);
    assert.equal(transportFailureOf(new TypeError('fetch failed', { cause: both }))?.failure, 'refused');
    assert.equal(transportFailureOf(new DOMException('timed out', 'TimeoutError'))?.failure, 'timeout');
    // ccxt copies the cause's message into its own NetworkError.
    const ccxt = new Error('binance GET fetch failed: getaddrinfo ENOTFOUND api.binance.com');
    assert.deepEqual(transportFailureOf(ccxt), { failure: 'dns', code: 'ENOTFOUND' });
  });

  it('finds nothing in a failure of our own', () => {
    assert.equal(transportFailureOf(new TypeError("Cannot read properties of undefined (reading 'price')")), undefined);
    assert.equal(
      transportFailureOf(new TypeError('fetch failed', { cause: new Error('refused by a guard') })),
      undefined,
    );
    assert.equal(transportFailureOf(undefined), undefined);
  });
});
