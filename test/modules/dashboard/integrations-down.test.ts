// The dashboard's integrations answer when the tracker, the mail relay or market data is down or
// hangs: reachable false with a safe reason, within the probe timeout, never a 500.
import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { startLinearFake } from '../../fakes/linear.ts';
import { closedPort } from '../../helpers/ports.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { assertNoSecrets, getIntegrations, LINEAR_KEY } from './dashboard-kit.ts';

describe('integrations with a tracker that fails', () => {
  it('answers reachable false with a safe reason when the tracker is down, never a 500', async () => {
    const t = await buildTestApp({
      env: {
        TRACKER_BACKEND: 'linear',
        TRACKER_API_URL: `http://127.0.0.1:${await closedPort()}/graphql`,
        TRACKER_API_KEY: LINEAR_KEY,
      },
    });
    try {
      const response = await getIntegrations(t);
      assert.equal(response.statusCode, 200);
      const { tracker } = response.json();
      assert.deepEqual([tracker.configured, tracker.reachable, tracker.last_success_at], [true, false, null]);
      assert.ok(tracker.last_error && tracker.last_error_at);
      assertNoSecrets(response.body, [LINEAR_KEY], 'integrations');
    } finally {
      await t.close();
    }
  });

  it('gives up on a tracker that hangs after the probe timeout', async () => {
    const linear = await startLinearFake({ apiKey: LINEAR_KEY });
    const t = await buildTestApp({
      env: {
        TRACKER_BACKEND: 'linear',
        TRACKER_API_URL: linear.url,
        TRACKER_API_KEY: LINEAR_KEY,
        TRACKER_TIMEOUT_MS: '20000',
      },
    });
    try {
      linear.failNext('hang');
      const started = Date.now();
      const response = await getIntegrations(t);
      assert.equal(response.statusCode, 200);
      // The 3 s probe timeout, not the 20 s request timeout: half of that is a bound a busy machine keeps.
      assert.ok(Date.now() - started < 10_000, 'bounded by the 3 s probe timeout');
      const { tracker } = response.json();
      assert.deepEqual([tracker.reachable, tracker.last_error], [false, 'did not answer within 3000 ms']);
    } finally {
      await t.close();
      await linear.close();
    }
  });
});

describe('integrations with a mail relay or market data that is down', () => {
  it('answers reachable false with the reason when nothing listens, never a 500', async () => {
    const port = await closedPort();
    const t = await buildTestApp({
      env: { SMTP_URL: `smtp://127.0.0.1:${port}`, BINANCE_API_URL: `http://127.0.0.1:${port}` },
    });
    try {
      const response = await getIntegrations(t);
      assert.equal(response.statusCode, 200);
      const { mail, market_data: market } = response.json();
      assert.deepEqual(
        [mail.configured, mail.reachable, mail.last_success_at, mail.latency_ms],
        [true, false, null, null],
      );
      assert.equal(mail.last_error, `smtp: ESOCKET: connect ECONNREFUSED 127.0.0.1:${port}`);
      assert.ok(mail.checked_at && mail.last_error_at);
      assert.deepEqual([market.configured, market.reachable, market.last_success_at], [true, false, null]);
      assert.equal(market.last_error, 'Binance is unreachable');
    } finally {
      await t.close();
    }
  });

  it('gives up on a relay that accepts the connection but never greets after the probe timeout', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const t = await buildTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MARKET_DATA_SOURCE: 'simulated' } });
    try {
      const started = Date.now();
      const response = await getIntegrations(t);
      assert.equal(response.statusCode, 200);
      // The 3 s probe timeout, not the mail client's 30 s greeting timeout: 10 s is a bound a busy machine keeps.
      assert.ok(Date.now() - started < 10_000, 'bounded by the 3 s probe timeout');
      const { mail } = response.json();
      assert.equal(mail.reachable, false);
      // The check's own 2.5 s greeting or socket timeout (whichever fires first), or the probe's 3 s
      // bound on a slow machine.
      assert.match(
        mail.last_error,
        /^(smtp: ETIMEDOUT: (Greeting never received|Timeout)|did not answer within 3000 ms)$/,
        mail.last_error,
      );
      assert.equal(sockets.size, 1);
      // The check's own timeouts end the session too: no socket is left waiting.
      const [socket] = sockets;
      const closed = socket!.closed
        ? Promise.resolve()
        : new Promise<void>((resolve) => socket!.once('close', () => resolve()));
      await Promise.race([
        closed,
        new Promise((_, reject) => setTimeout(() => reject(new Error('the check left its socket open')), 2_000)),
      ]);
    } finally {
      await t.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
