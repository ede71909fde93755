// Delivers the outbox messages every module enqueues (`chat.post`, `mail.send`) and reports how
// delivery goes, for the dashboard. Mail bodies are never logged nor kept in notes or errors.
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Database } from '../../platform/db/database.ts';
import { sealedMailAt } from './messages.ts';
import { CHAT_KIND, MAIL_KIND } from './notifications.outbox.ts';
import {
  isFinalFailure,
  PermanentFailure,
  replacePayload,
  statusByKind,
  type KindStatus,
  type OutboxHandler,
} from '../../platform/outbox/outbox.ts';
import type { ChatChannel } from './adapters/chat-channel.ts';
import { MAIL_RECORDED_ONLY, type Mailer } from './adapters/mailer.ts';
import { parseChatMessage } from './chat/chat-text.ts';
import type { NotificationsRepository } from './notifications.repository.ts';

/** How a delivery note begins when the message reached its receiver (not recorded only, not skipped). */
const DELIVERED = 'delivered';

interface NotificationsStatus {
  chat: { configured: boolean; format: 'slack' | 'discord' } & KindStatus;
  mail: { configured: boolean } & KindStatus;
}

export function createNotificationsService(deps: {
  chat: ChatChannel;
  mailer: Mailer;
  database: Pick<Database, 'db' | 'rows'>;
  repo: NotificationsRepository;
  secretBox: Pick<SecretBox, 'open'>;
}) {
  const { chat, mailer, database, repo, secretBox } = deps;
  const { db } = database;

  const deliverChat: OutboxHandler = async (payload, _row, signal) => {
    const message = parseChatMessage(payload);
    if (!message) throw new PermanentFailure('malformed chat message: source, title and text are required');
    return chat.post(message, signal);
  };

  const deliverMail: OutboxHandler = async (payload, row, signal) => {
    // Wiped by an earlier attempt that finished its work but died before the row was settled.
    if (payload.redacted === true) return 'nothing to send: the content was wiped after an earlier attempt';
    const { to, subject, sealed } = payload;
    if (typeof to !== 'string' || typeof subject !== 'string')
      throw new PermanentFailure('malformed mail: to and subject are required');
    // A sealed body leaves the row once the mail reaches a final outcome, whichever it is.
    const wipe = async () => {
      if (typeof sealed === 'string') await replacePayload(db, row.id, { to, subject, redacted: true });
    };

    // The address may have bounced or complained since the mail was queued.
    if (await repo.isSuppressed(to)) {
      await wipe();
      return 'skipped: the recipient is on the suppression list';
    }
    if (!mailer.configured) {
      await wipe();
      return MAIL_RECORDED_ONLY;
    }
    try {
      const content =
        typeof sealed === 'string' ? openSealed(secretBox, sealed, to) : { text: payload.text, html: payload.html };
      if (typeof content.text !== 'string') throw new PermanentFailure('malformed mail: text is required');
      const note = await mailer.send(
        { to, subject, text: content.text, html: typeof content.html === 'string' ? content.html : undefined },
        signal,
      );
      await wipe();
      return note;
    } catch (error) {
      if (!signal.aborted && isFinalFailure(error, row)) await wipe();
      throw error;
    }
  };

  return {
    deliverChat,
    deliverMail,

    /** Delivery health from the outbox rows: what waits, what failed for good, the last success and error. */
    async status(): Promise<NotificationsStatus> {
      const byKind = await statusByKind(database, [CHAT_KIND, MAIL_KIND], DELIVERED);
      return {
        chat: { configured: chat.configured, format: chat.format, ...byKind[CHAT_KIND]! },
        mail: { configured: mailer.configured, ...byKind[MAIL_KIND]! },
      };
    },
  };
}

function openSealed(box: Pick<SecretBox, 'open'>, sealed: string, to: string): { text?: unknown; html?: unknown } {
  // An unreadable value (e.g. its key not configured yet) is retried like any other failure.
  const parsed: unknown = JSON.parse(box.open(sealed, sealedMailAt(to)));
  return parsed && typeof parsed === 'object' ? (parsed as { text?: unknown; html?: unknown }) : {};
}
