// A loopback SMTP server (the `smtp-server` package) that keeps what it receives, and can refuse
// chosen recipients with 550 as a real relay refuses an unknown mailbox.
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent on the wire, CRLF line ends. */
  raw: string;
  /** Top-level headers, lower-cased names, folded lines joined. */
  headers: Record<string, string>;
}

export interface SmtpFake {
  url: string;
  received: ReceivedMail[];
  /**
   * RCPT TO for these addresses answers `550 5.1.1 <address>: Recipient address rejected:
   * ...`, quoting it as Postfix does.
   */
  rejectRecipients: Set<string>;
  /** Sessions opened so far, sending or not (a `verify()` opens one and sends nothing). */
  readonly connections: number;
  close(): Promise<void>;
}

function parseHeaders(raw: string): Record<string, string> {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

export async function startSmtpFake(): Promise<SmtpFake> {
  const received: ReceivedMail[] = [];
  const rejectRecipients = new Set<string>();
  let connections = 0;
  const server = new SMTPServer({
    // A plain relay on loopback: no TLS upgrade offered, no login required.
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onRcptTo(address, _session, callback) {
      if (rejectRecipients.has(address.address.toLowerCase())) {
        // Real relays quote the refused address in the reply (Postfix's wording).
        const error = Object.assign(
          new Error(`5.1.1 <${address.address}>: Recipient address rejected: User unknown in virtual mailbox table`),
          { responseCode: 550 },
        );
        return callback(error);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        received.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw, headers: parseHeaders(raw) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    rejectRecipients,
    get connections() {
      return connections;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
