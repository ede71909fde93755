// The two kinds of outbound message every module may cause. Modules describe what to say; the
// notifications module decides how (Slack or Discord format, SMTP or recorded only) when it sends.
import { eq } from 'drizzle-orm';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { DbExecutor } from '../db/database.ts';
import { emailSuppressions } from '../db/schema.ts';
import { enqueue } from './outbox.ts';

export const CHAT_KIND = 'chat.post';
export const MAIL_KIND = 'mail.send';

export interface ChatMessage {
  /** Which part of the system speaks, e.g. `codehost`, `payments`, `jobs`. */
  source: string;
  title: string;
  text: string;
  level?: 'info' | 'success' | 'warning' | 'error';
  url?: string;
  fields?: { name: string; value: string }[];
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /**
   * The body carries a secret (e.g. a new password): it is sealed with the secret box in the outbox
   * row and wiped from it once sent.
   */
  sensitive?: boolean;
}

export async function enqueueChat(executor: DbExecutor, message: ChatMessage, now: Date, dedupeKey?: string) {
  return enqueue(executor, { kind: CHAT_KIND, payload: { ...message }, dedupeKey }, now);
}

export async function isSuppressed(executor: DbExecutor, email: string): Promise<boolean> {
  const rows = await executor
    .select({ email: emailSuppressions.email })
    .from(emailSuppressions)
    .where(eq(emailSuppressions.email, email.trim().toLowerCase()))
    .limit(1);
  return rows.length > 0;
}

/** Queues the mail unless the address is suppressed; answers whether it was queued. */
export async function enqueueMail(
  executor: DbExecutor,
  box: SecretBox,
  mail: MailMessage,
  now: Date,
  dedupeKey?: string,
): Promise<{ queued: boolean; reason?: 'suppressed' }> {
  if (await isSuppressed(executor, mail.to)) return { queued: false, reason: 'suppressed' };
  const payload: Record<string, unknown> = mail.sensitive
    ? { to: mail.to, subject: mail.subject, sealed: box.seal(JSON.stringify({ text: mail.text, html: mail.html })) }
    : { to: mail.to, subject: mail.subject, text: mail.text, html: mail.html };
  await enqueue(executor, { kind: MAIL_KIND, payload, dedupeKey }, now);
  return { queued: true };
}
