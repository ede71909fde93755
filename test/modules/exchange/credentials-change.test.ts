// Changing exchange credentials: updating, deleting, one user's credential hidden from another, and
// no key, secret or passphrase in the log. Creating and reading them are in credentials-create.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertLoggedWithoutSecrets } from '../../helpers/log-checks.ts';
import { KEY, PASSPHRASE, SECRET, useCredentialsApp } from './credentials-fixtures.ts';
import { addAccount } from './venue-fakes.ts';

describe('exchange credentials', () => {
  const { fakes, t, alice, bob, request, auditsOf, create } = useCredentialsApp();

  describe('update', () => {
    it('renames, deactivates and replaces keys; new keys make the validation pending again', async () => {
      const account = addAccount(fakes.binanceus);
      const id = (
        await create(alice, { credential_name: 'to-update', api_key: account.apiKey, api_secret: account.secret })
      ).json().id;
      const validated = await request('POST', '/api/exchange/validate', alice, {
        exchange: 'binanceus',
        api_key: account.apiKey,
        api_secret: account.secret,
      });
      assert.deepEqual(validated.json().updated_credential_ids, [id]);
      const renamed = await request('PUT', `/api/exchange/credentials/${id}`, alice, {
        credential_name: 'renamed',
        is_active: false,
        permissions: ['read', 'trade'],
      });
      assert.equal(renamed.statusCode, 200);
      assert.equal(renamed.json().credential_name, 'renamed');
      assert.equal(renamed.json().is_active, false);
      assert.deepEqual(renamed.json().permissions, ['read', 'trade']);
      assert.equal(renamed.json().validation_status, 'valid');

      const newKey = 'ZzZzNewKey-0123456789-ZzZz';
      const rekeyed = await request('PUT', `/api/exchange/credentials/${id}`, alice, {
        api_key: newKey,
        api_secret: 'new-secret-0123456789',
      });
      assert.equal(rekeyed.statusCode, 200);
      assert.equal(rekeyed.json().validation_status, 'pending');
      assert.equal(rekeyed.json().last_validation, null);
      assert.ok(!rekeyed.body.includes(newKey));
      assert.equal(
        (await request('GET', `/api/exchange/credentials/${id}`, alice)).json().api_key_masked,
        'ZzZz****ZzZz',
      );

      const audits = await auditsOf(alice, id);
      const update = audits.find(
        (a) => a.action === 'exchange.credential.update' && (a.details.changed_fields as string[]).includes('api_key'),
      );
      assert.deepEqual(update?.details.changed_fields, ['api_key', 'api_secret']);
      assert.ok(!JSON.stringify(audits).includes(newKey));
    });

    it('refuses a duplicate name (409), removing a needed passphrase (422) and invalid fields (422)', async () => {
      const a = (await create(alice, { credential_name: 'one' })).json().id;
      await create(alice, { credential_name: 'two' });
      assert.equal(
        (await request('PUT', `/api/exchange/credentials/${a}`, alice, { credential_name: 'two' })).statusCode,
        409,
      );
      const okx = (
        await create(alice, { exchange_name: 'okx', credential_name: 'okx-2', api_passphrase: PASSPHRASE })
      ).json().id;
      const cleared = await request('PUT', `/api/exchange/credentials/${okx}`, alice, { api_passphrase: null });
      assert.equal(cleared.statusCode, 422);
      const invalid = await request('PUT', `/api/exchange/credentials/${a}`, alice, {
        api_key: 'short',
        is_active: 'maybe',
        ip_whitelist: ['300.1.1.1'],
      });
      assert.equal(invalid.statusCode, 422);
      assert.deepEqual((invalid.json().detail as { loc: (string | number)[] }[]).map((d) => d.loc.join('.')).sort(), [
        'body.api_key',
        'body.ip_whitelist.0',
        'body.is_active',
      ]);
      const unsendable = await request('PUT', `/api/exchange/credentials/${a}`, alice, {
        api_key: `${KEY}\n`,
        api_passphrase: 'ümlaut-phrase',
      });
      assert.equal(unsendable.statusCode, 422);
      assert.deepEqual(
        (unsendable.json().detail as { loc: string[]; type: string; input: string }[]).map((d) => [
          d.loc.join('.'),
          d.type,
          d.input,
        ]),
        [
          ['body.api_key', 'string_pattern_mismatch', '**********'],
          ['body.api_passphrase', 'string_pattern_mismatch', '**********'],
        ],
      );
      assert.equal(
        (await request('PUT', `/api/exchange/credentials/${a}`, undefined, { credential_name: 'x' })).statusCode,
        401,
      );
      assert.equal(
        (
          await request('PUT', '/api/exchange/credentials/00000000-0000-4000-8000-000000000000', alice, {
            credential_name: 'x',
          })
        ).statusCode,
        404,
      );
    });
  });

  describe('delete', () => {
    it('answers success, message and deleted_id, audits, and the credential is gone', async () => {
      const id = (await create(alice, { credential_name: 'to-delete' })).json().id;
      const response = await request('DELETE', `/api/exchange/credentials/${id}`, alice);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { success: true, message: 'Credential deleted', deleted_id: id });
      assert.equal((await request('GET', `/api/exchange/credentials/${id}`, alice)).statusCode, 404);
      assert.equal((await request('DELETE', `/api/exchange/credentials/${id}`, alice)).statusCode, 404);
      const audits = await auditsOf(alice, id);
      assert.ok(audits.some((a) => a.action === 'exchange.credential.delete'));
      assert.equal((await request('DELETE', `/api/exchange/credentials/${id}`)).statusCode, 401);
    });
  });

  describe('ownership', () => {
    it("hides one user's credential from another in every operation", async () => {
      const id = (await create(alice, { credential_name: 'private' })).json().id;
      const before = (await request('GET', `/api/exchange/credentials/${id}`, alice)).json();

      assert.equal((await request('GET', `/api/exchange/credentials/${id}`, bob)).statusCode, 404);
      assert.equal(
        (await request('PUT', `/api/exchange/credentials/${id}`, bob, { credential_name: 'stolen', is_active: false }))
          .statusCode,
        404,
      );
      assert.equal((await request('DELETE', `/api/exchange/credentials/${id}`, bob)).statusCode, 404);
      const bobsList = (await request('GET', '/api/exchange/credentials', bob)).json();
      assert.ok(bobsList.credentials.every((c: { id: string }) => c.id !== id));
      // Bob validating Alice's very key updates none of Alice's credentials.
      const validated = (
        await request('POST', '/api/exchange/validate', bob, {
          exchange: 'binanceus',
          api_key: KEY,
          api_secret: SECRET,
        })
      ).json();
      assert.deepEqual(validated.updated_credential_ids, []);
      // Bob naming Alice's credential for venue calls gets a 404 as well.
      for (const url of [
        `/api/exchange/balance/sync?exchange=binanceus&credential_id=${id}`,
        `/api/exchange/trades/sync?exchange=binanceus&credential_id=${id}&symbol=BTCUSDT`,
      ]) {
        assert.equal((await request('POST', url, bob)).statusCode, 404, url);
      }

      const after_ = (await request('GET', `/api/exchange/credentials/${id}`, alice)).json();
      assert.deepEqual(after_, before);
    });
  });

  it('never writes a key, secret or passphrase to the log', () => {
    assertLoggedWithoutSecrets(
      t,
      [
        { method: 'POST', path: '/api/exchange/credentials' },
        { method: 'POST', path: '/api/exchange/validate' },
      ],
      [KEY, SECRET, PASSPHRASE],
    );
  });
});
