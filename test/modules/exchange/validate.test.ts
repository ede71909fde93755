import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertLoggedWithoutSecrets } from '../../helpers/log-checks.ts';
import { signIn } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { useVenueApp } from './venue-app-fixtures.ts';
import { addAccount } from './venue-fakes.ts';

describe('POST /api/exchange/validate', () => {
  const { clock, fakes, t, user } = useVenueApp();

  const validate = (payload: Record<string, unknown>, headers: Record<string, string> = user.headers) =>
    t.app.inject({ method: 'POST', url: '/api/exchange/validate', headers, payload });

  it('accepts a binance key and reports its permissions and IP restriction from apiRestrictions', async () => {
    const account = addAccount(fakes.binance, { canWithdraw: true, extra: { restrictions: { ipRestrict: false } } });
    const response = await validate({ exchange: 'binance', api_key: account.apiKey, api_secret: account.secret });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.valid, true);
    assert.equal(body.cause, null);
    assert.deepEqual(body.permissions, { read: true, trade: true, withdraw: true });
    assert.equal(body.ip_restricted, false);
    assert.equal(body.currencies_with_balance, 3);
    assert.equal(body.warnings.length, 2);
    assert.equal(fakes.binance.countRequests('/sapi/v1/account/apiRestrictions') > 0, true);
    assert.ok(!response.body.includes(account.secret));
  });

  it('accepts a binance.us key, with permissions from the account flags (no apiRestrictions there)', async () => {
    const account = addAccount(fakes.binanceus, { canTrade: false });
    const before_ = fakes.binanceus.countRequests('/sapi/v1/account/apiRestrictions');
    const body = (
      await validate({ exchange: 'binanceus', api_key: account.apiKey, api_secret: account.secret })
    ).json();
    assert.equal(body.valid, true);
    assert.deepEqual(body.permissions, { read: true, trade: false, withdraw: false });
    assert.equal(body.ip_restricted, null);
    assert.equal(fakes.binanceus.countRequests('/sapi/v1/account/apiRestrictions'), before_);
  });

  it('says invalid_key for a key the venue does not know (200, never 5xx)', async () => {
    const response = await validate({
      exchange: 'binanceus',
      api_key: 'unknown-key-123456',
      api_secret: 'whatever-secret',
    });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.valid, false);
    assert.equal(body.cause, 'invalid_key');
    assert.match(body.message, /Invalid API-key, IP, or permissions for action\. \(code -2015\)/);
    assert.equal(body.permissions, null);
  });

  it('says invalid_key when the secret is wrong (bad signature)', async () => {
    const account = addAccount(fakes.binance);
    const body = (
      await validate({ exchange: 'binance', api_key: account.apiKey, api_secret: 'not-the-secret' })
    ).json();
    assert.equal(body.valid, false);
    assert.equal(body.cause, 'invalid_key');
    assert.match(body.message, /-1022/);
  });

  it('says wrong_venue when a binance.us key is tried on binance', async () => {
    const account = addAccount(fakes.binanceus);
    const body = (await validate({ exchange: 'binance', api_key: account.apiKey, api_secret: account.secret })).json();
    assert.equal(body.valid, false);
    assert.equal(body.cause, 'wrong_venue');
    assert.equal(body.message, 'These keys belong to binanceus, not binance');
  });

  it('says invalid_key, naming a missing permission among the causes, when the key may not read', async () => {
    // Binance refuses such a key with -2015 on every USER_DATA endpoint, apiRestrictions included:
    // the same answer as for an unknown key or a foreign IP, so validate cannot tell them apart.
    const account = addAccount(fakes.binance, { canRead: false });
    const response = await validate({ exchange: 'binance', api_key: account.apiKey, api_secret: account.secret });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.valid, false);
    assert.equal(body.cause, 'invalid_key');
    assert.match(body.message, /a permission missing/);
    assert.match(body.message, /code -2015/);
    assert.equal(body.permissions, null);
    assert.equal(body.currencies_with_balance, null);
  });

  it('says missing_passphrase for a passphrase venue without one, without calling it', async () => {
    const body = (await validate({ exchange: 'okx', api_key: 'okx-key-1234', api_secret: 'okx-secret-1234' })).json();
    assert.equal(body.valid, false);
    assert.equal(body.cause, 'missing_passphrase');
  });

  it('says venue_unreachable when the venue cannot be reached', async () => {
    const response = await validate({
      exchange: 'kraken',
      api_key: 'kraken-key-1234',
      api_secret: Buffer.from('kraken-secret').toString('base64'),
    });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.valid, false);
    assert.equal(body.cause, 'venue_unreachable');
    assert.ok(!body.message.includes('127.0.0.1'), 'no internal address in the message');
  });

  it('says rate_limited with retry_after when the venue answers 429, and venue_error on a 5xx', async () => {
    const account = addAccount(fakes.binanceus);
    fakes.binanceus.fail(
      500,
      { code: -1000, msg: 'An unknown error occurred while processing the request.' },
      { pathPrefix: '/api/v3/account' },
    );
    const failed = (
      await validate({ exchange: 'binanceus', api_key: account.apiKey, api_secret: account.secret })
    ).json();
    assert.equal(failed.cause, 'venue_error');
    fakes.binanceus.fail(
      429,
      { code: -1003, msg: 'Too many requests.' },
      { pathPrefix: '/api/v3/account', retryAfter: 1 },
    );
    const limited = (
      await validate({ exchange: 'binanceus', api_key: account.apiKey, api_secret: account.secret })
    ).json();
    assert.equal(limited.valid, false);
    assert.equal(limited.cause, 'rate_limited');
    assert.equal(limited.retry_after, 1);
    clock.advance(1_001);
  });

  it(
    "records the verdict on the caller's stored credentials " + 'holding the same key, and audits without secrets',
    async () => {
      // The validations above spent this minute's throttle of the user's key validations (decision 200).
      clock.advance(60_000);
      const account = addAccount(fakes.binanceus);
      const { id } = await storeVenueCredential(t.app, user, 'binanceus', account, {
        credential_name: 'to-validate',
      });
      const body = (
        await validate({ exchange: 'binanceus', api_key: account.apiKey, api_secret: account.secret })
      ).json();
      assert.deepEqual(body.updated_credential_ids, [id]);
      const stored = async () =>
        (await t.app.inject({ method: 'GET', url: `/api/exchange/credentials/${id}`, headers: user.headers })).json();
      const row = await stored();
      assert.equal(row.validation_status, 'valid');
      assert.match(row.last_validation, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      const refused = (
        await validate({ exchange: 'binanceus', api_key: account.apiKey, api_secret: 'wrong-secret-123' })
      ).json();
      assert.deepEqual(refused.updated_credential_ids, [id]);
      const after_ = await stored();
      assert.equal(after_.validation_status, 'invalid');
      assert.match(after_.validation_error, /-1022/);

      const admin = await signIn(t.app, t.database, { role: 'admin' });
      const activity = await t.app.inject({
        method: 'GET',
        url: `/api/admin/users/${user.id}/activity?limit=100`,
        headers: admin.headers,
      });
      const audits = (activity.json() as { action: string }[]).filter(
        (a) => a.action === 'exchange.credential.validate',
      );
      assert.ok(audits.length >= 2);
      assert.ok(!JSON.stringify(audits).includes(account.secret) && !JSON.stringify(audits).includes(account.apiKey));
    },
  );

  it('validates the body (422) and needs a bearer token (401)', async () => {
    const invalid = await validate({ exchange: 'mtgox', api_key: '' });
    assert.equal(invalid.statusCode, 422);
    const locs = (invalid.json().detail as { loc: string[] }[]).map((d) => d.loc.join('.')).sort();
    assert.deepEqual(locs, ['body.api_key', 'body.api_secret', 'body.exchange']);
    assert.equal((await validate({ exchange: 'binance', api_key: 'k', api_secret: 's' }, {})).statusCode, 401);
  });

  it(
    'refuses a key or passphrase that cannot travel in ' + 'a header with a masked 422, before asking the venue',
    async () => {
      const account = addAccount(fakes.binanceus);
      const calls = fakes.binanceus.requests.length;
      for (const api_key of [`${account.apiKey}\n`, `${account.apiKey}ключ`]) {
        const response = await validate({ exchange: 'binanceus', api_key, api_secret: account.secret });
        assert.equal(response.statusCode, 422, 'not a 200 venue_unreachable');
        assert.deepEqual(response.json().detail, [
          {
            type: 'string_pattern_mismatch',
            loc: ['body', 'api_key'],
            msg: "String should match pattern '^[\\x21-\\x7E]+$'",
            input: '**********',
            ctx: { pattern: '^[\\x21-\\x7E]+$' },
          },
        ]);
        assert.ok(!response.body.includes(account.apiKey));
      }
      const passphrase = await validate({
        exchange: 'okx',
        api_key: 'okx-key-1234',
        api_secret: 'okx-secret-1234',
        api_passphrase: 'line\nbreak',
      });
      assert.equal(passphrase.statusCode, 422);
      assert.deepEqual(
        passphrase
          .json()
          .detail.map((d: { loc: string[]; type: string; input: string }) => [d.loc.join('.'), d.type, d.input]),
        [['body.api_passphrase', 'string_pattern_mismatch', '**********']],
      );
      assert.equal(fakes.binanceus.requests.length, calls);
    },
  );

  it('never logs the keys it was given', () => {
    const accounts = [...fakes.binance.accounts.values(), ...fakes.binanceus.accounts.values()];
    // The keys were in play: both venues were sent some of them (one test's key is refused before).
    for (const venue of [fakes.binance, fakes.binanceus]) {
      assert.ok(venue.requests.some((r) => venue.accounts.has(String(r.headers['x-mbx-apikey']))));
    }
    assertLoggedWithoutSecrets(
      t,
      [
        { method: 'POST', path: '/api/exchange/validate' },
        { method: 'POST', path: '/api/exchange/credentials' },
      ],
      accounts.flatMap((account) => [account.apiKey, account.secret]),
    );
  });
});
