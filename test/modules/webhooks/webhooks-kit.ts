// Shared setup of the webhook tests: the secrets every provider is configured with, a pinned clock,
// and helpers to send a signed delivery and to read what it left in the outbox.
import { sql } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import type { SignedDelivery } from '../../fakes/webhook-senders.ts';

export const SECRETS = {
  CODEHOST_WEBHOOK_SECRET: "It's a Secret to Everybody",
  PAYMENTS_WEBHOOK_SECRET: 'whsec_payments_0123456789abcdef',
  EDGE_WEBHOOK_SECRET: 'vercel-webhook-secret',
  TRACKER_WEBHOOK_SECRET: 'lin_wh_tracker_secret_0123456789',
  ERRORMON_WEBHOOK_SECRET: 'sentry-client-secret-0123456789',
  DATABASE_WEBHOOK_SECRET: 'database-webhook-secret-0123456789',
  AUTHPROVIDER_HOOK_SECRET: `v1,whsec_${Buffer.alloc(24, 3).toString('base64')}`,
  MAILER_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
};

export const NOW = new Date('2025-06-01T12:00:00.000Z');
export const NOW_S = Math.floor(NOW.getTime() / 1000);

export async function webhookApp(env: Record<string, string | undefined> = SECRETS) {
  const clock = fixedClock(NOW);
  const t = await buildTestApp({ env, clock });
  return { t, clock };
}

export function send(
  t: TestApp,
  url: string,
  delivery: SignedDelivery,
  headers: Record<string, string | undefined> = {},
) {
  const merged: Record<string, string> = { ...delivery.headers };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  return t.app.inject({ method: 'POST', url, headers: merged, payload: delivery.body });
}

interface OutboxRow {
  kind: string;
  payload: Record<string, unknown>;
  status: string;
  dedupe_key: string | null;
}

/** Outbox rows queued by one provider's deliveries (their dedupe keys start with `provider:`). */
export async function outboxRows(t: TestApp, provider: string, kind = 'chat.post'): Promise<OutboxRow[]> {
  return t.database.rows<OutboxRow>(
    sql`SELECT kind, payload, status, dedupe_key FROM outbox
      WHERE kind = ${kind} AND dedupe_key LIKE ${`${provider}:%`}
      ORDER BY created_at, dedupe_key`,
  );
}

export async function deliveryRows(t: TestApp, provider: string) {
  return t.database.rows<{
    delivery_id: string;
    event: string;
    status: string;
    verified: boolean;
    error: string | null;
    attempts: number;
    payload: unknown;
  }>(
    sql`SELECT delivery_id, event, status, verified, error, attempts, payload
      FROM webhook_deliveries WHERE provider = ${provider}
      ORDER BY received_at, delivery_id`,
  );
}
