// Creating exchange credentials (sealed, validated, audited) and reading them back. Updating,
// deleting, ownership and the log are in credentials-change.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { exchangeCredentials } from '../../../src/modules/exchange/exchange.tables.ts';
import { KEY, PASSPHRASE, SECRET, useCredentialsApp } from './credentials-fixtures.ts';

describe('exchange credentials', () => {
  const { t, alice, bob, request, auditsOf, create } = useCredentialsApp();

  describe('create', () => {
    it(
      'stores the key sealed, answers 201 without any ' + 'secret, defaults the name and permissions, and audits',
      async () => {
        const response = await create(alice, {
          credential_name: 'Main',
          ip_whitelist: ['203.0.113.7', '2001:db8::/32'],
          exchange_metadata: { sub_account: 'a' },
        });
        assert.equal(response.statusCode, 201);
        const body = response.json();
        assert.equal(body.exchange_name, 'binanceus');
        assert.equal(body.credential_name, 'Main');
        assert.equal(body.user_id, alice.id);
        assert.deepEqual(body.permissions, ['read']);
        assert.deepEqual(body.ip_whitelist, ['203.0.113.7', '2001:db8::/32']);
        assert.deepEqual(body.exchange_metadata, { sub_account: 'a' });
        assert.equal(body.is_active, true);
        assert.equal(body.validation_status, 'pending');
        assert.equal(body.last_used, null);
        assert.match(body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        assert.ok(!response.body.includes(KEY) && !response.body.includes(SECRET));
        assert.ok(!('api_key' in body) && !('api_secret' in body) && !('api_key_masked' in body));

        // That the secrets are sealed at rest shows only in the credentials table.
        const [row] = await t.database.db.select().from(exchangeCredentials).where(eq(exchangeCredentials.id, body.id));
        assert.match(row!.apiKeySealed, /^v2:/);
        assert.ok(!JSON.stringify(row).includes(KEY) && !JSON.stringify(row).includes(SECRET));
        assert.equal(
          t.platform.secretBox.open(row!.apiSecretSealed, {
            table: 'exchange_credentials',
            column: 'api_secret_sealed',
            row: body.id,
          }),
          SECRET,
        );

        const audits = await auditsOf(alice, body.id);
        assert.equal(audits.length, 1);
        assert.equal(audits[0]!.action, 'exchange.credential.create');
        assert.equal(audits[0]!.actor_id, alice.id);
        assert.ok(!JSON.stringify(audits[0]).includes(KEY));
      },
    );

    it(
      'names a credential "Default" when no name is given, ' + 'and refuses a second one of the same name with 409',
      async () => {
        const first = await create(alice, { exchange_name: 'binance' });
        assert.equal(first.statusCode, 201);
        assert.equal(first.json().credential_name, 'Default');
        const again = await create(alice, { exchange_name: 'binance' });
        assert.equal(again.statusCode, 409);
        assert.match(again.json().detail, /already have a binance credential named "Default"/);
        // Another user may use the same name.
        assert.equal((await create(bob, { exchange_name: 'binance' })).statusCode, 201);
      },
    );

    it('reports every invalid field in the Pydantic shape', async () => {
      const response = await request('POST', '/api/exchange/credentials', alice, {
        exchange_name: 'mtgox',
        credential_name: 'x'.repeat(101),
        api_key: 'short',
        api_secret: 'tiny',
        permissions: ['read', 'admin'],
        ip_whitelist: ['10.0.0.1', 'not-an-ip', '10.0.0.0/33'],
      });
      assert.equal(response.statusCode, 422);
      const detail = response.json().detail as {
        type: string;
        loc: (string | number)[];
        ctx?: Record<string, unknown>;
      }[];
      const byLoc = new Map(detail.map((d) => [d.loc.join('.'), d]));
      assert.equal(byLoc.get('body.exchange_name')?.type, 'enum');
      assert.match(String(byLoc.get('body.exchange_name')?.ctx?.expected), /'binanceus', 'binance'/);
      assert.equal(byLoc.get('body.credential_name')?.type, 'string_too_long');
      assert.deepEqual(byLoc.get('body.api_key')?.ctx, { min_length: 8 });
      assert.equal(byLoc.get('body.api_secret')?.type, 'string_too_short');
      assert.equal(byLoc.get('body.permissions.1')?.type, 'enum');
      assert.equal(byLoc.get('body.ip_whitelist.1')?.type, 'ip_any_network');
      assert.equal(byLoc.get('body.ip_whitelist.2')?.type, 'ip_any_network');
      assert.ok(!byLoc.has('body.ip_whitelist.0'));
    });

    it(
      'refuses a key or passphrase that cannot travel in an ' + 'HTTP header, masked, and keeps the secret free-form',
      async () => {
        const pattern = (value: string) => ({
          type: 'string_pattern_mismatch',
          msg: `String should match pattern '${value}'`,
          input: '**********',
          ctx: { pattern: value },
        });
        const keyPattern = pattern('^[\\x21-\\x7E]+$');
        for (const api_key of [`${KEY}\nX-Injected: 1`, `${KEY}-ключ`, `${KEY}€`, `${KEY} ${KEY}`]) {
          const response = await create(alice, { api_key, credential_name: 'bad-key' });
          assert.equal(response.statusCode, 422, JSON.stringify(api_key));
          assert.deepEqual(response.json().detail, [{ loc: ['body', 'api_key'], ...keyPattern }]);
          assert.ok(!response.body.includes(KEY), 'the key is never echoed');
        }
        const passphrase = await create(alice, {
          exchange_name: 'okx',
          credential_name: 'bad-passphrase',
          api_passphrase: `${PASSPHRASE}\r\n`,
        });
        assert.equal(passphrase.statusCode, 422);
        assert.deepEqual(passphrase.json().detail, [
          { loc: ['body', 'api_passphrase'], ...pattern('^[\\x20-\\x7E]+$') },
        ]);
        assert.ok(!passphrase.body.includes(PASSPHRASE));
        // A passphrase may hold spaces; a secret may be a PEM block (Coinbase) with newlines.
        assert.equal(
          (await create(alice, { exchange_name: 'okx', credential_name: 'spaced', api_passphrase: 'my pass phrase' }))
            .statusCode,
          201,
        );
        const pem =
          '-----BEGIN EC PRIVATE ' +
          'KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5sIPDfL0nDlXgoAoGCCqGSM49\n-----END ' +
          'EC PRIVATE KEY-----\n';
        assert.equal(
          (await create(alice, { exchange_name: 'coinbase', credential_name: 'pem', api_secret: pem })).statusCode,
          201,
        );
      },
    );

    it('reports missing required fields', async () => {
      const response = await request('POST', '/api/exchange/credentials', alice, { credential_name: '' });
      assert.equal(response.statusCode, 422);
      const locs = (response.json().detail as { loc: string[]; type: string }[])
        .map((d) => `${d.loc.join('.')}:${d.type}`)
        .sort();
      assert.deepEqual(locs, [
        'body.api_key:missing',
        'body.api_secret:missing',
        'body.credential_name:string_too_short',
        'body.exchange_name:missing',
      ]);
    });

    it('requires the passphrase on venues whose keys have one (okx)', async () => {
      const missing = await create(alice, { exchange_name: 'okx' });
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(missing.json().detail[0].loc, ['body', 'api_passphrase']);
      const given = await create(alice, { exchange_name: 'okx', api_passphrase: PASSPHRASE });
      assert.equal(given.statusCode, 201);
      const read = await request('GET', `/api/exchange/credentials/${given.json().id}`, alice);
      assert.equal(read.json().has_passphrase, true);
      assert.ok(!read.body.includes(PASSPHRASE));
    });

    it('needs a bearer token', async () => {
      const response = await request('POST', '/api/exchange/credentials', undefined, {
        exchange_name: 'binanceus',
        api_key: KEY,
        api_secret: SECRET,
      });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), { detail: 'Not authenticated' });
    });
  });

  describe('list and read', () => {
    it("lists only the caller's credentials, filtered by venue on request", async () => {
      const all = await request('GET', '/api/exchange/credentials', alice);
      assert.equal(all.statusCode, 200);
      const body = all.json();
      assert.equal(body.total_count, body.credentials.length);
      assert.ok(body.credentials.every((c: { user_id: string }) => c.user_id === alice.id));
      assert.ok(!all.body.includes(KEY) && !all.body.includes(SECRET));
      const filtered = (await request('GET', '/api/exchange/credentials?exchange_name=okx', alice)).json();
      assert.ok(filtered.total_count >= 1);
      assert.ok(filtered.credentials.every((c: { exchange_name: string }) => c.exchange_name === 'okx'));
      const bad = await request('GET', '/api/exchange/credentials?exchange_name=ftx', alice);
      assert.equal(bad.statusCode, 422);
      assert.deepEqual(bad.json().detail[0].loc, ['query', 'exchange_name']);
      assert.equal((await request('GET', '/api/exchange/credentials')).statusCode, 401);
    });

    it('reads one credential with the masked key and has_passphrase', async () => {
      const id = (await create(alice, { credential_name: 'masked' })).json().id;
      const response = await request('GET', `/api/exchange/credentials/${id}`, alice);
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.equal(body.api_key_masked, `${KEY.slice(0, 4)}****${KEY.slice(-4)}`);
      assert.equal(body.has_passphrase, false);
      assert.ok(!response.body.includes(KEY));
      assert.equal((await request('GET', `/api/exchange/credentials/${id}`)).statusCode, 401);
    });

    it('answers 404 for an unknown id and 422 for a malformed one', async () => {
      const unknown = await request('GET', '/api/exchange/credentials/00000000-0000-4000-8000-000000000000', alice);
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(unknown.json(), { detail: 'Credential not found' });
      const malformed = await request('GET', '/api/exchange/credentials/not-a-uuid', alice);
      assert.equal(malformed.statusCode, 422);
      assert.equal(malformed.json().detail[0].type, 'uuid_parsing');
      assert.deepEqual(malformed.json().detail[0].loc, ['path', 'credential_id']);
    });
  });
});
