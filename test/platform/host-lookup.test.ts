// The lookup of names users chose (their webhook URLs' hosts): asked of DNS directly, bounded in time,
// so a name server that never answers costs a few seconds of a timer and none of libuv's pool threads
// (decision 792).
import assert from 'node:assert/strict';
import { scrypt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createResolverLookup } from '../../src/platform/host-lookup.ts';
import { startFakeDns, type FakeDns } from '../fakes/dns.ts';

describe('the lookup of user-chosen host names', () => {
  let dns: FakeDns;
  before(async () => {
    dns = await startFakeDns();
    dns.answer('hooks.example.com', ['203.0.113.10', '203.0.113.11']);
    dns.silence('stalls.example.net');
  });
  after(() => dns.close());

  it('answers every IPv4 address of a name, and a literal address without asking', async () => {
    const lookup = createResolverLookup({ timeoutMs: 2000, servers: [dns.server] });
    assert.deepEqual(await lookup('hooks.example.com'), [
      { address: '203.0.113.10', family: 4 },
      { address: '203.0.113.11', family: 4 },
    ]);
    const asked = dns.queries.length;
    assert.deepEqual(await lookup('2001:db8::1'), [{ address: '2001:db8::1', family: 6 }]);
    assert.deepEqual(await lookup('198.51.100.7'), [{ address: '198.51.100.7', family: 4 }]);
    assert.equal(dns.queries.length, asked);
    await assert.rejects(lookup('unknown.example.org'), { code: 'ENOTFOUND' });
  });

  it('gives up on a name server that never answers within its bound, holding no pool thread meanwhile', async () => {
    const lookup = createResolverLookup({ timeoutMs: 1500, servers: [dns.server] });
    const started = performance.now();
    // More stalled lookups than libuv has pool threads (4): password hashing still runs, and ends while they
    // all wait. Had they held the pool's threads, the hash would have waited for them to let go. An order,
    // not a time: the machine's load can slow the hash, not turn the order round.
    let settled = 0;
    const stalled = Array.from({ length: 8 }, () =>
      lookup('stalls.example.net').finally(() => {
        settled += 1;
      }),
    );
    await promisify(scrypt)('password', 'salt', 32);
    assert.equal(settled, 0, 'a hash waited for the lookups');
    for (const outcome of await Promise.allSettled(stalled)) {
      assert.equal(outcome.status, 'rejected');
      assert.equal((outcome as PromiseRejectedResult).reason.code, 'ETIMEOUT');
    }
    const took = performance.now() - started;
    assert.ok(took >= 1450 && took < 10_000, `gave up after ${Math.round(took)} ms`);
  });
});
