// Database webhooks (Supabase): row changes; new and removed user profiles are worth a message.
import type { ChatMessage } from '../../notifications/index.ts';
import { verifyBearer } from '../signatures.ts';
import { header, RETRY_WINDOW_MS, obj, str, type Json, processed, type ProviderHandler } from './provider.ts';

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

export const databaseHandler: ProviderHandler = {
  provider: 'database',
  name: 'Database',
  signature: (headers, secret) => verifyBearer(header(headers, 'authorization'), secret),
  identify(delivery) {
    const { type, qualified } = describe(delivery.headers, delivery.body);
    // Supabase sends no delivery id; a row change is identified by its content, and may recur.
    return { sameBodyWindowMs: RETRY_WINDOW_MS, event: `${type} ${qualified}` };
  },
  async apply(context) {
    const { type, table } = describe(context.headers, context.body);
    const message = databaseMessage(type, table, context.body);
    if (message) await context.chat(message);
    return processed();
  },
};
