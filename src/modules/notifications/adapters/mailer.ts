// Where mail goes: an SMTP server through nodemailer (SMTP_URL), or nowhere (recorded in the outbox
// only). SMTP replies sort failures: a 5xx on the envelope or message is final, anything else
// (connection, timeout, 4xx, a refused login that an operator may fix) is retried. `verify()` checks
// the relay without sending anything: it connects, greets, and logs in when the URL has credentials.
import type { Transporter } from 'nodemailer';
import { abortable, DeliveryAborted, PermanentFailure, RetryLater } from '../../../platform/outbox/outbox.ts';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Whether the relay answered a connect-and-greet, and how fast; never throws. */
export interface MailServerCheck {
  reachable: boolean;
  latencyMs: number | null;
  /** Why not, as the SMTP reply line or the socket error. */
  detail: string | null;
}

export interface Mailer {
  readonly configured: boolean;
  /** Sends and answers the note kept on the outbox row; throws RetryLater or PermanentFailure. */
  /** `signal` (the outbox worker stopping) stops waiting for the relay; the row is retried later. */
  send(mail: OutgoingMail, signal?: AbortSignal): Promise<string>;
  /** Checks the relay without sending; null when there is none to check. */
  verify(): Promise<MailServerCheck | null>;
}

export const MAIL_RECORDED_ONLY = 'recorded only: SMTP_URL is not set';

export function createRecordOnlyMailer(): Mailer {
  return { configured: false, send: async () => MAIL_RECORDED_ONLY, verify: async () => null };
}

export function createSmtpMailer(options: {
  smtpUrl: string;
  from: string;
  timeoutMs?: number;
  verifyTimeoutMs?: number;
}): Mailer {
  const timeout = options.timeoutMs ?? 15_000;
  // A check must not hold a socket for the 15 s a send may take: a transport of its own, with every
  // phase (connect, greeting, each reply) bounded a little under the dashboard's 3 s probe limit, so
  // a silent relay is reported in nodemailer's words (`ETIMEDOUT: Greeting never received` or
  // `Timeout`) and let go at once.
  const verifyTimeout = options.verifyTimeoutMs ?? 2_500;
  // nodemailer is loaded by the first send or check, not at start: an idle server holds none of it
  // (decision 390). Its own logger stays off: it would write message contents.
  let transports: Promise<{ transport: Transporter; checker: Transporter }> | undefined;
  const transportsOf = () =>
    (transports ??= import('nodemailer').then(({ default: nodemailer }) => ({
      transport: nodemailer.createTransport({
        url: options.smtpUrl,
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout * 2,
        logger: false,
      }),
      checker: nodemailer.createTransport({
        url: options.smtpUrl,
        connectionTimeout: verifyTimeout,
        greetingTimeout: verifyTimeout,
        socketTimeout: verifyTimeout,
        logger: false,
      }),
    })));
  return {
    configured: true,
    async send(mail, signal) {
      try {
        const { transport } = await transportsOf();
        const sending = transport.sendMail({
          from: options.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
        });
        const info = signal ? await abortable(sending, signal) : await sending;
        return `delivered: smtp accepted ${info.messageId}`;
      } catch (error) {
        if (error instanceof DeliveryAborted) throw error;
        const { code, responseCode } = error as { code?: string; responseCode?: number };
        const reason = describe(error);
        if (responseCode !== undefined && responseCode >= 500 && code !== 'EAUTH') throw new PermanentFailure(reason);
        throw new RetryLater(reason);
      }
    },
    async verify() {
      const started = performance.now();
      try {
        const { checker } = await transportsOf();
        await checker.verify();
        return { reachable: true, latencyMs: Math.round((performance.now() - started) * 100) / 100, detail: null };
      } catch (error) {
        return { reachable: false, latencyMs: null, detail: describe(error) };
      }
    },
  };
}

function describe(error: unknown): string {
  const { code, responseCode } = error as { code?: string; responseCode?: number };
  return `smtp: ${code ?? 'error'}${responseCode ? ` ${responseCode}` : ''}: ${firstLine(error)}`;
}

/** SMTP replies quote the envelope at most, never the body; keep one line of them. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 300);
}
