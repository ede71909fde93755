// The database's LISTEN on PostgreSQL (decision 750): every channel of one Database on one session, which
// the server counts in pg_stat_activity under the application name the test gives it. Its faults are made
// for real by a loopback TCP proxy in front of the server: cut, refused, frozen and back.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { startTcpProxy, type TcpProxy } from '../../fakes/tcp-proxy.ts';
import { withoutPostgres } from '../../helpers/services.ts';
import { after, afterEach, before, beforeEach, describe, it } from '../../helpers/suite.ts';
import { testDatabase, testDatabaseUrl } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';

const NO_POSTGRES = withoutPostgres(
  'the LISTEN session is counted on a real server, and cut through a TCP proxy in front of it ' +
    '(DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)',
);

const QUERY_TIMEOUT_MS = 600;
const CONNECT_TIMEOUT_MS = 600;

/** One channel's subscriber: what it heard and how often it was told the session was back. */
interface Heard {
  channel: string;
  payloads: string[];
  reconnects: number;
  stop: () => Promise<void>;
}

describe('LISTEN on PostgreSQL: one session for every channel', { skip: NO_POSTGRES }, () => {
  let proxy: TcpProxy;
  let database: Database;
  /** The file's own database, straight to the server: it sends the notifications and counts sessions. */
  let direct: Database;
  let app: string;

  before(async () => {
    direct = await testDatabase();
    const url = new URL((await testDatabaseUrl())!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    app = `listen_${randomUUID().slice(0, 8)}`;
    url.searchParams.set('application_name', app);
    database = await openDatabase({
      url: proxy.url(url.toString()),
      poolSize: 2,
      queryTimeoutMs: QUERY_TIMEOUT_MS,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    });
  });
  after(async () => {
    await database?.close();
    await proxy?.close();
  });
  beforeEach(async () => {
    // The migrations' session is gone; nothing else of this database has opened one.
    await waitFor(async () => (await sessions()) === 0, 'no session of the app');
  });
  afterEach(async () => {
    await proxy.mode('pass');
    proxy.latency({});
  });

  async function sessions(): Promise<number> {
    const [row] = await direct.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${app}`,
    );
    return row!.n;
  }

  const channelName = () => `test_listen_${randomUUID().replaceAll('-', '')}`;

  async function subscribe(channel = channelName()): Promise<Heard> {
    const heard: Heard = { channel, payloads: [], reconnects: 0, stop: async () => {} };
    heard.stop = await database.listen(
      channel,
      (payload) => heard.payloads.push(payload),
      () => heard.reconnects++,
    );
    return heard;
  }

  /** Notifications in one statement: delivered in this order, at its commit. */
  async function notify(...sent: [channel: string, payload: string][]): Promise<void> {
    const calls = sql.join(
      sent.map(([channel, payload]) => sql`pg_notify(${channel}, ${payload})`),
      sql`, `,
    );
    await direct.db.execute(sql`SELECT ${calls}`);
  }

  it('three channels and a second subscriber of one take one session; the last stop ends it', async () => {
    const [a, b, c] = [await subscribe(), await subscribe(), await subscribe()];
    const a2 = await subscribe(a!.channel);
    const all = [a!, a2, b!, c!];
    try {
      assert.equal(await sessions(), 1, 'one LISTEN session for four subscribers of three channels');

      await notify([a!.channel, 'a1'], [b!.channel, 'b1'], [c!.channel, 'c1']);
      await waitFor(() => c!.payloads.length === 1, 'the last notification');
      assert.deepEqual([a!.payloads, a2.payloads, b!.payloads, c!.payloads], [['a1'], ['a1'], ['b1'], ['c1']]);

      // A stopped subscriber hears nothing more; its channel's other subscriber still does. A stopped
      // channel is UNLISTENed: its notification, sent before c's, would have come before it.
      await a!.stop();
      await b!.stop();
      await notify([a!.channel, 'a2'], [b!.channel, 'b2'], [c!.channel, 'c2']);
      await waitFor(() => c!.payloads.length === 2, "c's second notification");
      assert.deepEqual([a!.payloads, a2.payloads, b!.payloads], [['a1'], ['a1', 'a2'], ['b1']]);
      assert.equal(await sessions(), 1);

      await a2.stop();
      await c!.stop();
      await waitFor(async () => (await sessions()) === 0, 'the session to end with the last stop');
      // A channel after the last stop opens the session again.
      const d = await subscribe();
      all.push(d);
      assert.equal(await sessions(), 1);
      await notify([d.channel, 'd1']);
      await waitFor(() => d.payloads.length === 1, "d's notification");
      assert.deepEqual(
        all.map((one) => one.reconnects),
        [0, 0, 0, 0, 0],
      );
    } finally {
      for (const one of all) await one.stop();
    }
  });

  it("cut: every channel's onReconnect runs once, and notifications flow again on every channel", async () => {
    const all = [await subscribe(), await subscribe(), await subscribe()];
    try {
      proxy.reset();
      await waitFor(() => all.every((one) => one.reconnects === 1), "every channel's onReconnect");
      assert.equal(await sessions(), 1, 'one session again');
      await notify(...all.map((one): [string, string] => [one.channel, `after ${one.channel}`]));
      await waitFor(() => all.every((one) => one.payloads.length === 1), 'a notification on every channel');
      assert.deepEqual(
        all.map((one) => one.payloads),
        all.map((one) => [`after ${one.channel}`]),
      );

      // Cut while new connections are refused: tried again until the server is back, then told once.
      proxy.reset();
      await proxy.mode('refuse');
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      assert.deepEqual(
        all.map((one) => one.reconnects),
        [1, 1, 1],
        'not told before the session is back',
      );
      await proxy.mode('pass');
      await waitFor(() => all.every((one) => one.reconnects === 2), "every channel's onReconnect after the refusal");
      assert.equal(await sessions(), 1);
      await notify(...all.map((one): [string, string] => [one.channel, 'again']));
      await waitFor(() => all.every((one) => one.payloads.length === 2), 'notifications after the refusal');
    } finally {
      for (const one of all) await one.stop();
    }
  });

  it("frozen: a new channel's LISTEN fails within its bound; after the thaw the others are told and hear again", async () => {
    const all = [await subscribe(), await subscribe()];
    try {
      await proxy.mode('blackhole');
      const started = performance.now();
      await assert.rejects(subscribe());
      const ms = performance.now() - started;
      assert.ok(ms < QUERY_TIMEOUT_MS + 1_000 + 1_500, `rejected after ${Math.round(ms)} ms`);
      await proxy.mode('pass');
      await waitFor(() => all.every((one) => one.reconnects === 1), "every channel's onReconnect after the thaw");
      await notify(...all.map((one): [string, string] => [one.channel, 'thawed']));
      await waitFor(() => all.every((one) => one.payloads.includes('thawed')), 'notifications after the thaw');
      assert.equal(await sessions(), 1);
    } finally {
      for (const one of all) await one.stop();
    }
  });
});
