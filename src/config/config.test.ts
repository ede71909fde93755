import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
}

describe('settings meant for a developer machine', () => {
  const longSecret = 'x'.repeat(32);

  it('are refused where the server listens beyond this machine', () => {
    assert.deepEqual(
      problemsOf({ HOST: '0.0.0.0', WEBHOOKS_ALLOW_UNSIGNED: 'true', SCHEDULED_JOB_SECRET: 'short-secret' }),
      [
        'WEBHOOKS_ALLOW_UNSIGNED=true is for development only; HOST=0.0.0.0 listens beyond this machine',
        'SCHEDULED_JOB_SECRET must be at least 32 characters when HOST=0.0.0.0 listens beyond this machine',
      ],
    );
    assert.deepEqual(problemsOf({ HOST: '::', SCHEDULED_JOB_SECRET: longSecret }), []);
  });

  it('are accepted on a loopback address', () => {
    for (const HOST of ['127.0.0.1', '::1', 'localhost', '127.0.0.2']) {
      assert.deepEqual(
        problemsOf({ HOST, WEBHOOKS_ALLOW_UNSIGNED: 'true', SCHEDULED_JOB_SECRET: 'short-secret' }),
        [],
        HOST,
      );
    }
  });
});

describe('TRUST_PROXY', () => {
  it('takes addresses, CIDRs and the named ranges', () => {
    const config = loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,fd00::/8, loopback' });
    assert.deepEqual(config.server.trustProxy, ['10.0.0.1', '192.168.0.0/16', 'fd00::/8', 'loopback']);
    assert.deepEqual(loadConfig({}).server.trustProxy, []);
  });

  it('names every entry it cannot read', () => {
    assert.deepEqual(problemsOf({ TRUST_PROXY: 'true,10.0.0.0/33' }), [
      'TRUST_PROXY must list IP addresses, CIDRs or loopback, linklocal, uniquelocal (got "true")',
      'TRUST_PROXY must list IP addresses, CIDRs or loopback, linklocal, uniquelocal (got "10.0.0.0/33")',
    ]);
  });
});

describe('SIGNAL_SHARED_ADDRESSES', () => {
  it("is TradingView's four addresses unless named; `none` names none", () => {
    assert.deepEqual(loadConfig({}).signals.sharedAddresses, [
      '52.89.214.238',
      '34.212.75.30',
      '54.218.53.128',
      '52.32.178.7',
    ]);
    assert.deepEqual(
      loadConfig({ SIGNAL_SHARED_ADDRESSES: ' 10.0.0.1, ::ffff:10.0.0.2,2001:db8::1' }).signals.sharedAddresses,
      ['10.0.0.1', '10.0.0.2', '2001:db8::1'],
    );
    assert.deepEqual(loadConfig({ SIGNAL_SHARED_ADDRESSES: 'none' }).signals.sharedAddresses, []);
  });

  it('names the entries it cannot read', () => {
    assert.deepEqual(problemsOf({ SIGNAL_SHARED_ADDRESSES: '10.0.0.1,tradingview,10.0.0.0/8' }), [
      'SIGNAL_SHARED_ADDRESSES must be IP addresses, comma-separated, or none: not tradingview, 10.0.0.0/8',
    ]);
  });
});
