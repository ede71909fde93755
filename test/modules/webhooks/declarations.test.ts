// Each provider is one declaration (decision 245): its secret variable reaches config through the
// declared list, its effects can use only the ports it declares, and the database refuses a
// delivery row of a provider or status outside the declared sets.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { Type } from 'typebox';
import { loadConfig } from '../../../src/config/config.ts';
import { WEBHOOK_SECRET_VARIABLES } from '../../../src/modules/webhooks/index.ts';
import { defineWebhookProvider } from '../../../src/modules/webhooks/providers/declaration.ts';
import { processed } from '../../../src/modules/webhooks/providers/provider.ts';
import {
  WEBHOOK_PROVIDER_DECLARATIONS,
  WEBHOOK_PROVIDERS,
  webhookSecrets,
} from '../../../src/modules/webhooks/providers/registry.ts';
import { OK } from '../../../src/modules/webhooks/signatures.ts';
import type { Database } from '../../../src/platform/db/database.ts';
import { testDatabase } from '../../helpers/test-app.ts';
import { SECRETS } from './webhooks-kit.ts';

const BASE = { JWT_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') };

describe('webhook provider declarations', () => {
  it("config reads each declared provider's secret from the variable its declaration names", () => {
    const config = loadConfig({ ...BASE, ...SECRETS }, { webhookSecrets: WEBHOOK_SECRET_VARIABLES });
    const secrets = webhookSecrets(config.webhooks.secrets);
    assert.deepEqual(Object.keys(secrets), [...WEBHOOK_PROVIDERS]);
    assert.equal(secrets.codehost, SECRETS.CODEHOST_WEBHOOK_SECRET);
    assert.equal(secrets.authprovider, SECRETS.AUTHPROVIDER_HOOK_SECRET);
    assert.equal(secrets.mailer, SECRETS.MAILER_WEBHOOK_SECRET);
    assert.deepEqual(
      WEBHOOK_PROVIDER_DECLARATIONS.map((d) => d.secretVariable).sort(),
      Object.keys(SECRETS).sort(),
      'the variables the docs name',
    );
  });

  it('without the declared list config reads no webhook secret, so every receiver stays closed', () => {
    const config = loadConfig({ ...BASE, ...SECRETS });
    assert.deepEqual(config.webhooks.secrets, {});
    assert.ok(Object.values(webhookSecrets(config.webhooks.secrets)).every((secret) => secret === undefined));
  });

  it('five of the eight providers use only chat', () => {
    const chatOnly = WEBHOOK_PROVIDER_DECLARATIONS.filter((d) => d.ports.length === 1 && d.ports[0] === 'chat');
    assert.deepEqual(
      chatOnly.map((d) => d.provider),
      ['codehost', 'edge', 'tracker', 'errormon', 'database'],
    );
  });

  it('an effect cannot reach a port its provider did not declare (checked by the compiler)', async () => {
    const probe = defineWebhookProvider({
      provider: 'probe',
      name: 'Probe',
      secretVariable: 'PROBE_WEBHOOK_SECRET',
      route: { url: '/probe', operationId: 'probe', summary: 'Probe', description: 'Probe.', headers: Type.Object({}) },
      bodyLimit: 1024,
      security: {},
      redact: (body) => body,
      signature: () => OK,
      identify: () => ({ event: 'probe' }),
      ports: ['chat'],
      async apply(context) {
        // @ts-expect-error: `suppress` is not among the declared ports.
        await context.suppress?.('a@example.com', 'bounced');
        await context.chat({ title: 'probe', text: '', level: 'info' });
        return processed();
      },
    });
    const said: string[] = [];
    const outcome = await probe.apply({
      now: new Date(0),
      provider: 'probe',
      deliveryId: 'd-1',
      event: 'probe',
      body: {},
      headers: {},
      chat: async (message) => {
        said.push(message.title);
      },
    });
    assert.equal(outcome.status, 'processed');
    assert.deepEqual(said, ['probe']);
  });
});

describe('webhook_deliveries in the database', () => {
  let database: Database;
  before(async () => {
    database = await testDatabase();
  });

  const insert = (provider: string, status: string) =>
    database.db.execute(sql`INSERT INTO webhook_deliveries (provider, delivery_id, event, payload, status)
      VALUES (${provider}, ${`d-${provider}-${status}`}, 'e', '{}'::jsonb, ${status})`);

  const refusedBy = (constraint: string) => (error: Error) => {
    assert.match(`${error.message} ${String((error as { cause?: Error }).cause?.message)}`, new RegExp(constraint));
    return true;
  };

  it('refuses a provider that is not declared and a status outside the list', async () => {
    await assert.rejects(insert('github', 'processed'), refusedBy('webhook_deliveries_provider_check'));
    await assert.rejects(insert('codehost', 'done'), refusedBy('webhook_deliveries_status_check'));
    await insert('codehost', 'processing');
    await insert('mailer', 'superseded');
  });
});
