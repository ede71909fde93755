// What every module may ask the notifications module to say, and how it is queued: in the outbox,
// in the caller's transaction, so a message is sent once its cause has committed and never without
// it. Modules describe what to say; this module decides how (Slack or Discord, SMTP or recorded
// only) when it delivers.
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import type { NotificationsRepository } from './notifications.repository.ts';
import { CHAT_KIND, enqueue, MAIL_KIND } from './notifications.outbox.ts';

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

/**
 * A sealed mail body is bound to its recipient: moved into a mail to another address (by SQL on the
 * outbox), it no longer opens, so a reset link cannot be redirected.
 */
export const sealedMailAt = (to: string) => ({
  table: 'outbox',
  column: 'payload.sealed',
  row: to.trim().toLowerCase(),
});

export function createMessages(box: SecretBox, repo: NotificationsRepository) {
  return {
    /** Queues a chat post; answers its outbox row, or null when one with the same dedupe key was queued before. */
    chat(executor: DbExecutor, message: ChatMessage, now: Date, dedupeKey?: string): Promise<string | null> {
      return enqueue({ kind: CHAT_KIND, payload: { ...message }, dedupeKey }, now, executor);
    },

    /** Queues the mail unless the address is suppressed; answers whether it was queued. */
    async mail(
      executor: DbExecutor,
      mail: MailMessage,
      now: Date,
      dedupeKey?: string,
    ): Promise<{ queued: boolean; reason?: 'suppressed' }> {
      if (await repo.isSuppressed(mail.to, executor)) return { queued: false, reason: 'suppressed' };
      const payload: Record<string, unknown> = mail.sensitive
        ? {
            to: mail.to,
            subject: mail.subject,
            sealed: box.seal(JSON.stringify({ text: mail.text, html: mail.html }), sealedMailAt(mail.to)),
          }
        : { to: mail.to, subject: mail.subject, text: mail.text, html: mail.html };
      await enqueue({ kind: MAIL_KIND, payload, dedupeKey }, now, executor);
      return { queued: true };
    },

    isSuppressed: (email: string, executor: DbExecutor): Promise<boolean> => repo.isSuppressed(email, executor),

    /** No mail goes to this address any more (it bounced, or its owner complained); answers whether it is new. */
    suppress: (email: string, reason: string, now: Date, executor: DbExecutor): Promise<boolean> =>
      repo.suppress(email, reason, now, executor),
  };
}
