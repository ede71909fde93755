// ccxt's signing over node:crypto (decision 610): the same signature as ccxt's own HMAC for every hash and
// digest the venues sign with, ccxt's own function for anything else, and every instance built with it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as ccxt from 'ccxt';
import { createMemoryCache } from '../../../platform/cache/cache.ts';
import { type CcxtHmac, nodeAlgorithmOf, nodeHmac } from './ccxt-hmac.ts';
import { createCcxtClients } from './ccxt-clients.ts';

const ownHmac = (ccxt.functions as unknown as { hmac: CcxtHmac }).hmac;

interface Signed {
  hash: unknown;
  digest: string | undefined;
}

/** The hash and digest each venue's `sign` hands to `hmac` for a private POST (ccxt's own code picks them). */
function signingOf(venue: string, path: string, secret: string, password?: string): Signed[] {
  const Class = (ccxt as unknown as Record<string, new (config: object) => ccxt.Exchange>)[venue]!;
  const exchange = new Class({ apiKey: 'key', secret, password });
  const seen: Signed[] = [];
  const client = exchange as unknown as { hmac: CcxtHmac; sign(...args: unknown[]): unknown };
  client.hmac = (request, key, hash, digest) => {
    seen.push({ hash, digest });
    return ownHmac(request, key, hash, digest);
  };
  client.sign(path, 'private', 'POST', {});
  return seen;
}

const VENUES: [venue: string, path: string, secret: string, password?: string][] = [
  ['binance', 'order', 'secret'],
  ['okx', 'trade/order', 'secret', 'passphrase'],
  ['bybit', 'v5/order/create', 'secret'],
  ['kraken', 'AddOrder', Buffer.from('k'.repeat(64)).toString('base64')],
  ['bitfinex', 'auth/r/wallets', 'secret'],
];

const signings = VENUES.flatMap(([venue, ...rest]) => signingOf(venue, ...rest).map((s) => ({ venue, ...s })));
const encoder = new TextEncoder();
const INPUTS: [request: string | Uint8Array, secret: string | Uint8Array][] = [
  ['symbol=BTCUSDT&side=BUY&type=MARKET&quantity=0.001&timestamp=1764500000000', 'secret'],
  ['', ''],
  ['ü€😀 and a lone surrogate \ud800', 'clé secrète 🔑'],
  [encoder.encode('bytes in'), encoder.encode('x'.repeat(300))],
  [Uint8Array.from({ length: 1000 }, (_, i) => i % 256), Uint8Array.from({ length: 200 }, (_, i) => (i * 7) % 256)],
];

describe('nodeHmac', () => {
  it('finds the SHA-2 hashes the venues sign with: sha256, sha512 and sha384', () => {
    const names = signings.map(({ venue, hash }) => `${venue} ${nodeAlgorithmOf(hash)}`);
    assert.deepEqual(names, ['binance sha256', 'okx sha256', 'bybit sha256', 'kraken sha512', 'bitfinex sha384']);
  });

  it("answers ccxt's own signature for each venue's hash, every digest, text and bytes in", () => {
    const signed = nodeHmac(ownHmac);
    for (const { venue, hash } of signings) {
      for (const digest of ['hex', 'base64', 'binary', undefined]) {
        for (const [request, secret] of INPUTS) {
          const expected = ownHmac(request, secret, hash, digest);
          const actual = signed(request, secret, hash, digest);
          assert.deepEqual(actual, expected, `${venue} ${digest}`);
          assert.equal(Object.getPrototypeOf(actual), Object.getPrototypeOf(expected), `${venue} ${digest}`);
        }
      }
    }
  });

  it("leaves to ccxt's own function a hash it does not know, a digest it does not know, or other input", () => {
    const calls: unknown[][] = [];
    const own: CcxtHmac = (...args) => {
      calls.push(args);
      return 'own';
    };
    const signed = nodeHmac(own);
    const sha256 = signings.find((s) => s.venue === 'binance')!.hash as { oid: Uint8Array };
    const unknownHash = Object.assign(() => new Uint8Array(32), { outputLen: 32, blockLen: 64 });
    const lyingHash = Object.assign(() => new Uint8Array(20), { outputLen: 20, oid: sha256.oid });
    assert.equal(signed('a', 'b', unknownHash, 'hex'), 'own');
    assert.equal(signed('a', 'b', lyingHash, 'hex'), 'own');
    assert.equal(signed('a', 'b', sha256, 'base58'), 'own');
    assert.equal(signed(42, 'b', sha256, 'hex'), 'own');
    assert.equal(calls.length, 4);
    assert.equal(nodeAlgorithmOf(unknownHash), null);
    assert.equal(nodeAlgorithmOf('sha256'), null);
  });

  it("is every built instance's hmac", async () => {
    const clients = createCcxtClients({
      settings: { binanceApiUrl: '', binanceUsApiUrl: '', apiUrls: {}, rateLimit: false, timeoutMs: 5_000 },
      cache: createMemoryCache(),
      egress: { venue: () => ({ forUser: () => fetch }) } as never,
      budget: () => ({ weights: undefined }) as never,
    });
    for (const venue of ['binance', 'okx', 'kraken'] as const) {
      const exchange = (await clients.bare(venue)) as unknown as { hmac: CcxtHmac };
      assert.notEqual(exchange.hmac, ownHmac, venue);
      const { hash } = signings.find((s) => s.venue === venue)!;
      assert.equal(exchange.hmac('request', 'secret', hash, 'hex'), ownHmac('request', 'secret', hash, 'hex'));
      assert.equal(exchange.hmac('request', 'secret', hash, 'hex'), exchange.hmac('request', 'secret', hash));
    }
  });
});
