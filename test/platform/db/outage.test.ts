// PostgreSQL cut, refused, frozen and back, for real: the app's pool speaks to the test database
// through a loopback TCP proxy that resets, refuses or black-holes its connections on command. The
// app runs in this process, so an unhandled 'error' from a node-postgres client would end the test run.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from '../../helpers/suite.ts';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.ts';
import { createMemoryCache } from '../../../src/platform/cache/cache.ts';
import { CLIENT_TIMEOUT_MARGIN_MS, openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { createLogger } from '../../../src/platform/observability/logger.ts';
import { createPlatform } from '../../../src/platform/platform.ts';
import { startTcpProxy, type TcpProxy } from '../../fakes/tcp-proxy.ts';
import {
  buildTestApp,
  newClientAddress,
  openTestPglite,
  signIn,
  testDatabaseUrl,
  type TestApp,
  type TestUser,
} from '../../helpers/test-app.ts';
import { withoutPostgres } from '../../helpers/services.ts';

const NO_POSTGRES = withoutPostgres(
  'PostgreSQL outages are made through a TCP proxy in front of a real server ' +
    '(DATABASE_URL=postgres://postgres@127.0.0.1:5432/test)',
);

const QUERY_TIMEOUT_MS = 600;
const CONNECT_TIMEOUT_MS = 600;

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

describe('PostgreSQL outages', { skip: NO_POSTGRES }, () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let database: Database;
  let app: FastifyInstance;
  let user: TestUser;
  const lines: string[] = [];

  before(async () => {
    t = await buildTestApp();
    user = await signIn(t.app, t.database);
    const url = new URL((await testDatabaseUrl())!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    database = await openDatabase({
      url: proxy.url(url.toString()),
      poolSize: 4,
      queryTimeoutMs: QUERY_TIMEOUT_MS,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    });
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const platform = await createPlatform(t.config, {
      database,
      cache: createMemoryCache(),
      logger: createLogger('info', sink),
      defaultMetrics: false,
    });
    app = await buildApp(platform);
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await database?.close();
    await proxy?.close();
    await t?.close();
  });

  const me = () => app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
  const login = () =>
    app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: user.email, password: user.password } });
  const logged = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string });

  async function waitUntilServed(): Promise<number> {
    const started = performance.now();
    for (;;) {
      if ((await me()).statusCode === 200) return performance.now() - started;
      if (performance.now() - started > 10_000) throw new Error('requests did not succeed again within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('answers through the proxy while the database is there', async () => {
    assert.equal((await me()).statusCode, 200);
    assert.equal((await login()).statusCode, 200);
  });

  it('survives cuts in the middle of open transactions: every request answers, none with a 500', async () => {
    // Slow the link so that registrations (a transaction each) are in flight while every connection
    // is reset, again and again.
    proxy.latency({ toClientMs: 10 });
    const answers = Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        // Each from an address of its own: sign-ups are limited per address.
        app.inject({
          method: 'POST',
          url: '/api/auth/register',
          remoteAddress: newClientAddress(),
          payload: { email: `cut-${i}@example.com`, password: 'Pw-cut-0123456789' },
        }),
      ),
    );
    const cuts = setInterval(() => proxy.reset(), 25);
    const statuses = (await answers).map((answer) => answer.statusCode);
    clearInterval(cuts);
    proxy.latency({});
    assert.ok(
      statuses.every((status) => status === 201 || status === 503),
      `statuses: ${statuses.join(',')}`,
    );
    assert.ok(statuses.includes(503), `the cut failed some requests: ${statuses.join(',')}`);
    // The pool replaced its dead connections by itself.
    assert.ok((await waitUntilServed()) < 2_000);
  });

  it(
    'refused: 503 {"detail":"Database unavailable"} with ' + 'Retry-After, logged once at warn, never as unhandled',
    async () => {
      lines.length = 0;
      proxy.reset();
      await proxy.mode('refuse');
      for (let i = 0; i < 5; i++) {
        const { value: response, ms } = await timed(me);
        assert.equal(response.statusCode, 503, response.body);
        assert.deepEqual(response.json(), { detail: 'Database unavailable' });
        assert.equal(response.headers['retry-after'], '2');
        assert.ok(ms < CONNECT_TIMEOUT_MS + 1_000, `answered in ${Math.round(ms)} ms`);
      }
      // Logins that could not be checked do not count against the account's throttle.
      for (let i = 0; i < 7; i++) assert.equal((await login()).statusCode, 503);
      const warnings = logged().filter((line) => line.msg.startsWith('database unavailable'));
      assert.equal(warnings.length, 1);
      assert.equal((warnings[0] as { level: number }).level, 40);
      assert.equal(logged().filter((line) => line.msg === 'unhandled error' || line.level >= 50).length, 0);
      await proxy.mode('pass');
      assert.ok((await waitUntilServed()) < 2_000);
      assert.equal((await login()).statusCode, 200, 'the account is not locked out by the outage');
    },
  );

  it(
    'a statement stopped at the statement bound is slow, not an outage: its own 503, a warning ' +
      'naming the route and statement',
    async () => {
      const pg = (await import('pg')).default;
      const holder = new pg.Client({ connectionString: (await testDatabaseUrl())! });
      await holder.connect();
      try {
        // Another session holds the users table: the guard's lookup of the caller waits until the
        // server stops it at the statement bound, while the database answers everything else.
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
        lines.length = 0;
        const response = await me();
        assert.equal(response.statusCode, 503, response.body);
        assert.deepEqual(response.json(), {
          detail:
            'The database took too long to answer this request; try again, or ask for less (a ' +
            'narrower filter or a smaller page)',
        });
        assert.equal(response.headers['retry-after'], '2');
      } finally {
        await holder.query('ROLLBACK');
        await holder.end();
      }
      const slow = logged().filter((line) => line.msg === 'slow query: stopped at the statement bound') as unknown as {
        level: number;
        route: string;
        statement: string;
      }[];
      assert.equal(slow.length, 1, lines.join(''));
      assert.equal(slow[0]!.level, 40);
      assert.equal(slow[0]!.route, 'GET /api/auth/me');
      // The guard's lookup of the caller (with or without its session, as the cache has it).
      assert.match(slow[0]!.statement, /^select … from "(users|device_sessions)".* "users"\."id" = \$\d/);
      assert.ok(!lines.join('').includes(user.id), 'the statement is named without its parameters');
      assert.equal(logged().filter((line) => line.msg.startsWith('database unavailable')).length, 0, 'not an outage');
      assert.equal((await me()).statusCode, 200);
    },
  );

  it(
    'a burst larger than the pool while the database answers is busy, not an outage: its own 503, logged ' +
      'once, never "Database unavailable"',
    async () => {
      // The pool's four connections open first, as on a server that has been serving.
      assert.deepEqual(
        (await Promise.all(Array.from({ length: 4 }, () => me()))).map((answer) => answer.statusCode),
        [200, 200, 200, 200],
      );
      lines.length = 0;
      // Every statement takes 150 ms longer: 40 requests through 4 connections wait longer than the
      // connect bound for one, while statements keep coming back.
      proxy.latency({ toClientMs: 150 });
      const answers = await Promise.all(Array.from({ length: 40 }, () => me()));
      proxy.latency({});
      const statuses = answers.map((answer) => answer.statusCode);
      assert.ok(
        statuses.every((status) => status === 200 || status === 503),
        `statuses: ${statuses.join(',')}`,
      );
      const busy = answers.filter((answer) => answer.statusCode === 503);
      assert.ok(busy.length > 0, `the burst outgrew the pool: ${statuses.join(',')}`);
      assert.ok(statuses.includes(200), `the database answered some: ${statuses.join(',')}`);
      for (const answer of busy) {
        assert.deepEqual(answer.json(), {
          detail:
            'The server is busy: every database connection stayed in use while this request waited; try again shortly',
        });
        assert.equal(answer.headers['retry-after'], '1');
      }
      const saturated = logged().filter((line) => line.msg === 'database pool saturated: answering 503 busy');
      assert.equal(saturated.length, 1, lines.join(''));
      assert.equal(saturated[0]!.level, 40);
      assert.equal(logged().filter((line) => line.msg.startsWith('database unavailable')).length, 0, 'not an outage');
      assert.equal((await me()).statusCode, 200);
    },
  );

  it(
    'frozen: every request is answered 503 within the ' + 'statement bound, and served again within 2 s of the thaw',
    async () => {
      assert.equal((await me()).statusCode, 200);
      await proxy.mode('blackhole');
      const answers = await Promise.all(Array.from({ length: 6 }, () => timed(me)));
      for (const { value: response, ms } of answers) {
        assert.equal(response.statusCode, 503, response.body);
        assert.deepEqual(response.json(), { detail: 'Database unavailable' });
        // The client's query bound, or the connect bound for a new connection.
        assert.ok(
          ms < QUERY_TIMEOUT_MS + CLIENT_TIMEOUT_MARGIN_MS + CONNECT_TIMEOUT_MS + 1_500,
          `answered in ${Math.round(ms)} ms`,
        );
      }
      await proxy.mode('pass');
      const recovered = await waitUntilServed();
      assert.ok(recovered < 2_000, `served again after ${Math.round(recovered)} ms`);
    },
  );
});

describe('embedded database closed', () => {
  it('answers 503 {"detail":"Database unavailable"}, never a 500', async () => {
    const database = await openTestPglite();
    const config = (await import('../../../src/config/config.ts')).loadConfig({
      DATA_DIR: '/nonexistent-unused',
      JWT_SECRET: 'test-jwt-secret-that-is-long-enough-0123456789',
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      MARKET_LIVE_STREAM: 'false',
    });
    const platform = await createPlatform(config, {
      database,
      cache: createMemoryCache(),
      logger: createLogger('silent'),
      defaultMetrics: false,
    });
    const app = await buildApp(platform);
    await app.ready();
    try {
      const user = await signIn(app, database);
      await database.close();
      const response = await app.inject({ method: 'GET', url: '/api/auth/me', headers: user.headers });
      assert.equal(response.statusCode, 503, response.body);
      assert.deepEqual(response.json(), { detail: 'Database unavailable' });
    } finally {
      await app.close();
    }
  });
});
