// rotate-api-keys: secrets sealed under a retired encryption key are re-sealed under the current one,
// and one chat notification a day lists the provider keys due for rotation, without key material.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { exchangeCredentials } from '../../../src/modules/exchange/exchange.tables.ts';
import { providerApiKeys } from '../../../src/modules/provider-keys/provider-keys.tables.ts';
import { users } from '../../../src/modules/users/users.tables.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { createSecretBox, keyId } from '../../../src/platform/crypto/secret-box.ts';
import { outbox } from '../../../src/platform/db/schema.ts';
import { buildTestApp, signIn, TEST_ENCRYPTION_KEY, type TestApp } from '../../helpers/test-app.ts';
import { storeVenueCredential } from '../../helpers/venue-credentials.ts';
import { ago, DAY, JOB_SECRET, NOW, runJob } from '../jobs/jobs-fixtures.ts';

const NEW_KEY = Buffer.alloc(32, 11).toString('base64');
const keyMaterial = (prefix: string) => `${prefix}-${randomBytes(16).toString('hex')}`;

describe('rotate-api-keys', () => {
  const clock = fixedClock(NOW);
  const plaintexts: string[] = [];
  let totpSecret = '';
  let enrolledId = '';
  let t: TestApp;

  before(async () => {
    // Seed under the old encryption key: three provider keys created at different times, one exchange credential.
    const seeding = await buildTestApp({ clock, env: { SCHEDULED_JOB_SECRET: JOB_SECRET } });
    try {
      const admin = await signIn(seeding.app, seeding.database, { role: 'admin' });
      const create = async (at: Date, provider: string, days: number) => {
        clock.set(at);
        const apiKey = keyMaterial(`sk-${provider}`);
        plaintexts.push(apiKey);
        const response = await seeding.app.inject({
          method: 'POST',
          url: '/api/v1/admin/api-keys',
          headers: admin.headers,
          payload: { provider, api_key: apiKey, rotation_reminder_days: days },
        });
        assert.equal(response.statusCode, 201, response.body);
      };
      await create(ago(40 * DAY), 'openai', 30); // due 10 days ago
      await create(ago(20 * DAY), 'anthropic', 30); // due in 10 days
      await create(NOW, 'groq', 90); // due in 90 days
      clock.set(NOW);
      await storeVenueCredential(
        seeding.app,
        admin,
        'okx',
        { apiKey: 'okx-key-123456', secret: 'okx-secret-123456', passphrase: 'okx-pass' },
        { credential_name: 'main' },
      );
      // A user's two-factor secret, sealed at setup.
      const setup = await seeding.app.inject({
        method: 'POST',
        url: '/api/auth/2fa/setup',
        headers: admin.headers,
        payload: { password: admin.password },
      });
      assert.equal(setup.statusCode, 200, setup.body);
      totpSecret = setup.json<{ secret: string }>().secret;
      enrolledId = admin.id;
    } finally {
      await seeding.close();
    }
    t = await buildTestApp({
      clock,
      keepData: true,
      env: {
        SCHEDULED_JOB_SECRET: JOB_SECRET,
        ENCRYPTION_KEY: NEW_KEY,
        ENCRYPTION_KEYS_OLD: TEST_ENCRYPTION_KEY,
        JOB_TRIGGER_WINDOW_SECONDS: '0',
      },
    });
    // (No trigger window: each trigger here is a new run, as the runs in a row below want.)
  });
  after(() => t.close());

  it(
    're-seals every secret under the current key and queues one notification of the keys ' +
      'due; a second run changes nothing',
    async () => {
      const run = await runJob(t.app, 'rotate-api-keys');
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      assert.deepEqual(run.result, {
        provider_keys: { scanned: 3, reencrypted: 3, unreadable: 0 },
        exchange_credentials: { scanned: 1, reencrypted: 1, unreadable: 0 },
        two_factor_secrets: { scanned: 1, reencrypted: 1, unreadable: 0 },
        rotation_reminders: { due: 2, overdue: 1, notification_queued: true },
      });

      // Under which key a secret is sealed shows only at rest: the two tables are read.
      const current = keyId(Buffer.from(NEW_KEY, 'base64'));
      const onlyNew = createSecretBox(Buffer.from(NEW_KEY, 'base64'));
      for (const row of await t.database.db.select().from(providerApiKeys)) {
        assert.equal(row.encryptedKey.split(':')[1], current);
        assert.ok(
          plaintexts.includes(
            onlyNew.open(row.encryptedKey, { table: 'provider_api_keys', column: 'encrypted_key', row: row.id }),
          ),
        );
      }
      const [credential] = await t.database.db.select().from(exchangeCredentials);
      assert.equal(
        onlyNew.open(credential!.apiPassphraseSealed!, {
          table: 'exchange_credentials',
          column: 'api_passphrase_sealed',
          row: credential!.id,
        }),
        'okx-pass',
      );
      const [enrolled] = await t.database.db.select().from(users).where(eq(users.id, enrolledId));
      assert.equal(
        onlyNew.open(enrolled!.totpSecretSealed!, { table: 'users', column: 'totp_secret_sealed', row: enrolledId }),
        totpSecret,
      );

      // The notification is read where it is queued: its once-a-day dedupe key is outbox bookkeeping.
      const messages = await t.database.db.select().from(outbox).where(eq(outbox.kind, 'chat.post'));
      assert.equal(messages.length, 1);
      const payload = messages[0]!.payload as {
        title: string;
        level: string;
        text: string;
        fields: { name: string; value: string }[];
      };
      assert.equal(payload.level, 'warning');
      assert.match(
        payload.text,
        /^2 active provider keys are overdue or due for rotation within 14 days \(1 overdue\)\.$/,
      );
      assert.deepEqual(
        payload.fields.map((f) => f.name),
        ['openai', 'anthropic'],
      );
      assert.match(payload.fields[0]!.value, /^overdue by 10 days \(\d{4}-\d{2}-\d{2}\), key id [0-9a-f-]{36}$/);
      assert.match(payload.fields[1]!.value, /^due in 10 days /);
      const raw = JSON.stringify(messages[0]);
      for (const secret of plaintexts) {
        assert.ok(!raw.includes(secret.slice(0, 7)), 'neither a key nor its prefix reaches chat');
      }
      assert.equal(messages[0]!.dedupeKey, `jobs:rotate-api-keys:reminders:${NOW.toISOString().slice(0, 10)}`);

      const again = await runJob(t.app, 'rotate-api-keys');
      assert.deepEqual(again.result, {
        provider_keys: { scanned: 3, reencrypted: 0, unreadable: 0 },
        exchange_credentials: { scanned: 1, reencrypted: 0, unreadable: 0 },
        two_factor_secrets: { scanned: 1, reencrypted: 0, unreadable: 0 },
        rotation_reminders: { due: 2, overdue: 1, notification_queued: false },
      });
      assert.equal((await t.database.db.select().from(outbox).where(eq(outbox.kind, 'chat.post'))).length, 1);
    },
  );

  it('counts a secret sealed under a key no longer configured as unreadable, and still succeeds', async () => {
    // A secret sealed under a key no longer configured cannot be made through any operation: written at rest.
    const foreign = `v1:ffffffffffff:${randomBytes(12).toString('base64')}:${randomBytes(16).toString('base64')}:AAAA`;
    await t.database.db.update(exchangeCredentials).set({ apiKeySealed: foreign });
    await t.database.db.update(users).set({ totpSecretSealed: foreign }).where(eq(users.id, enrolledId));
    const [first] = await t.database.db.select().from(providerApiKeys).limit(1);
    await t.database.db.update(providerApiKeys).set({ encryptedKey: foreign }).where(eq(providerApiKeys.id, first!.id));
    const run = await runJob(t.app, 'rotate-api-keys');
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.deepEqual(run.result.provider_keys, { scanned: 3, reencrypted: 0, unreadable: 1 });
    assert.deepEqual(run.result.exchange_credentials, { scanned: 1, reencrypted: 0, unreadable: 1 });
    assert.deepEqual(run.result.two_factor_secrets, { scanned: 1, reencrypted: 0, unreadable: 1 });
  });

  it('queues nothing when no key is due', async () => {
    clock.set(new Date(NOW.getTime() - 60 * DAY));
    try {
      const run = await runJob(t.app, 'rotate-api-keys');
      assert.deepEqual(run.result.rotation_reminders, { due: 0, overdue: 0, notification_queued: false });
    } finally {
      clock.set(NOW);
    }
  });
});
