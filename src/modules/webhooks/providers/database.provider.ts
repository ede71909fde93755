// Database webhooks (Supabase): row changes; new and removed user profiles are worth a message.
import { Type } from 'typebox';
import { bearerScheme } from '../../../platform/http/openapi.ts';
import type { ChatMessage } from '../../notifications/index.ts';
import { redactSecrets } from '../payload-redaction.ts';
import { verifyBearer } from '../signatures.ts';
import { defineWebhookProvider, MiB } from './declaration.ts';
import { header, RETRY_WINDOW_MS, obj, optionalHeader, str, type Json, processed } from './provider.ts';

/** Tables whose rows are people: an insert is a sign-up, a delete an account gone. */
const USER_TABLES = new Set(['users', 'profiles', 'user_profiles', 'accounts']);

function person(record: Json): string {
  const name = str(record.full_name) ?? str(record.display_name) ?? str(record.username) ?? str(record.name);
  const email = str(record.email);
  if (name && email) return `${name} <${email}>`;
  return name ?? email ?? str(record.id) ?? 'unknown';
}

export function databaseMessage(type: string, table: string, body: Json): Omit<ChatMessage, 'source'> | null {
  if (!USER_TABLES.has(table)) return null;
  if (type === 'INSERT') {
    return {
      title: 'New user signed up',
      text: person(obj(body.record)),
      level: 'success',
      fields: [{ name: 'Table', value: table }],
    };
  }
  if (type === 'DELETE') {
    return {
      title: 'User removed',
      text: person(obj(body.old_record)),
      level: 'warning',
      fields: [{ name: 'Table', value: table }],
    };
  }
  return null;
}

function describe(
  headers: Parameters<typeof header>[0],
  body: Json,
): { type: string; table: string; qualified: string } {
  const type = (header(headers, 'x-webhook-event') ?? str(body.type) ?? 'unknown').toUpperCase();
  const table = str(body.table) ?? 'unknown';
  const schema = str(body.schema);
  const source = header(headers, 'x-webhook-source');
  const qualified = schema ? `${schema}.${table}` : (source ?? table);
  return { type, table, qualified };
}

export const databaseProvider = defineWebhookProvider({
  provider: 'database',
  name: 'Database',
  secretVariable: 'DATABASE_WEBHOOK_SECRET',
  route: {
    url: '/api/webhooks/platforms/database',
    operationId: 'receiveDatabaseEvent',
    summary: 'Receive a database (Supabase) row change',
    description:
      'Authenticated by `Authorization: Bearer <secret>` (database webhooks are not signed). An INSERT on a ' +
      'user table (users, profiles) posts "New user signed up", a DELETE "User removed"; other changes are ' +
      'stored only. The body hash is the deduplication key.',
    headers: Type.Object({
      authorization: optionalHeader('`Bearer <DATABASE_WEBHOOK_SECRET>`.'),
      'x-webhook-source': optionalHeader(
        "Source identifier, e.g. `public.profiles`; the body's schema and table win when present.",
      ),
      'x-webhook-event': optionalHeader("Event type (`INSERT`, `UPDATE`, `DELETE`); the body's `type` when absent."),
    }),
  },
  bodyLimit: 4 * MiB,
  security: { databaseSecret: bearerScheme('`Bearer <DATABASE_WEBHOOK_SECRET>` (Supabase database webhooks).') },
  // A password column of a changed row is not kept.
  redact: redactSecrets,
  signature: (headers, secret) => verifyBearer(header(headers, 'authorization'), secret),
  identify(delivery) {
    const { type, qualified } = describe(delivery.headers, delivery.body);
    // Supabase sends no delivery id; a row change is identified by its content, and may recur.
    return { sameBodyWindowMs: RETRY_WINDOW_MS, event: `${type} ${qualified}` };
  },
  ports: ['chat'],
  async apply(context) {
    const { type, table } = describe(context.headers, context.body);
    const message = databaseMessage(type, table, context.body);
    if (message) await context.chat(message);
    return processed();
  },
});
