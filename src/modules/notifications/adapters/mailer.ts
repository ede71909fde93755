// Where mail goes: an SMTP server through nodemailer (SMTP_URL), or nowhere (recorded in the outbox
// only). SMTP replies sort failures: a 5xx on the envelope or message is final, anything else
// (connection, timeout, 4xx, a refused login that an operator may fix) is retried.
import nodemailer from 'nodemailer';
import { PermanentFailure, RetryLater } from '../../../platform/outbox/outbox.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface Mailer {
  readonly configured: boolean;
  /** Sends and answers the note kept on the outbox row; throws RetryLater or PermanentFailure. */
  send(mail: OutgoingMail): Promise<string>;
}

export const MAIL_RECORDED_ONLY = 'recorded only: SMTP_URL is not set';

export function createRecordOnlyMailer(): Mailer {
  return { configured: false, send: async () => MAIL_RECORDED_ONLY };
}

export function createSmtpMailer(options: { smtpUrl: string; from: string; timeoutMs?: number }): Mailer {
  const timeout = options.timeoutMs ?? 15_000;
  // nodemailer's own logger stays off: it would write message contents.
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout * 2,
    logger: false,
  });
  return {
    configured: true,
    async send(mail) {
      try {
        const info = await transport.sendMail({ from: options.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
        return `delivered: smtp accepted ${info.messageId}`;
      } catch (error) {
        const { code, responseCode } = error as { code?: string; responseCode?: number };
        const reason = `smtp: ${code ?? 'error'}${responseCode ? ` ${responseCode}` : ''}: ${firstLine(error)}`;
        if (responseCode !== undefined && responseCode >= 500 && code !== 'EAUTH') throw new PermanentFailure(reason);
        throw new RetryLater(reason);
      }
    },
  };
}

/** SMTP replies quote the envelope at most, never the body; keep one line of them. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 300);
}
