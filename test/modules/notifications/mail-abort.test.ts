// A relay that accepts the connection and never says a word: a send is abandoned as soon as the
// outbox worker stops (SIGTERM), long before nodemailer's own timeouts, so the process can exit.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createSmtpMailer } from '../../../src/modules/notifications/adapters/mailer.ts';
import { DeliveryAborted } from '../../../src/platform/outbox/outbox.ts';
import { waitFor } from '../../helpers/wait.ts';

describe('mail to a silent relay', () => {
  const sockets = new Set<Socket>();
  const relay = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  let port = 0;
  before(async () => {
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    port = (relay.address() as { port: number }).port;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => relay.close(resolve));
  });

  it('stops waiting at once when the worker stops', async () => {
    const mailer = createSmtpMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'a@example.com', timeoutMs: 30_000 });
    const stopping = new AbortController();
    const sending = mailer.send({ to: 'b@example.com', subject: 's', text: 't' }, stopping.signal);
    // The send is under way: the relay holds its connection.
    await waitFor(() => sockets.size > 0, 'the connection to the relay');
    const started = performance.now();
    stopping.abort();
    await assert.rejects(sending, (error) => error instanceof DeliveryAborted);
    // Abandoned, not waited out: the 30 s timeout would take three times this bound (a wide margin
    // for a busy machine; an abort takes milliseconds).
    const waited = performance.now() - started;
    assert.ok(waited < 10_000, `the abort took ${Math.round(waited)} ms`);
  });
});
