// The service and the CLI as operators run them: real processes, real signals, real exit codes.
// They use this file's database (PostgreSQL when DATABASE_URL is set, else PGlite in a temp DATA_DIR).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { verifyPassword } from '../../../src/platform/crypto/passwords.ts';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { users } from '../../../src/platform/db/schema.ts';
import { testDatabase, testDatabaseUrl } from '../../helpers/test-app.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const NETWORK_GUARD = path.join(ROOT, 'test/helpers/no-network.ts');
const STARTUP_MS = 120_000;

interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[], env: Record<string, string | undefined>): Running {
  // A clean environment: only what the test gives, so nothing of the runner's leaks in. The
  // children carry the network guard too, and keep the live market stream closed: the server
  // would otherwise open Binance's real WebSocket as soon as it listens.
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', NETWORK_GUARD, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MARKET_LIVE_STREAM: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += String(chunk)));
  child.stderr!.on('data', (chunk) => (err += String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = STARTUP_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Where the spawned processes keep their data: this file's PostgreSQL database, or a PGlite dir. */
async function storage(): Promise<Record<string, string | undefined>> {
  const url = await testDatabaseUrl();
  return {
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tp-proc-')),
    DATABASE_URL: url,
    REDIS_URL: process.env.REDIS_URL,
    REDIS_KEY_PREFIX: `test:${randomUUID()}:`,
  };
}

const logLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('operations', () => {
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('invalid configuration stops the start with one line per problem and exit code 1', { timeout: STARTUP_MS }, async () => {
    const env = { ...(await storage()), PORT: 'abc', ADMIN_EMAIL: 'admin@example.com', LOG_LEVEL: 'loud' };
    const proc = run(['src/main.ts'], env);
    children.push(proc.child);
    const { code } = await proc.exited;
    assert.equal(code, 1);
    assert.deepEqual(proc.stderr().trim().split('\n').sort(), [
      'config: ADMIN_EMAIL and ADMIN_PASSWORD must be set together',
      'config: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      'config: PORT must be an integer from 0 to 65535 (got "abc")',
    ]);
    assert.equal(proc.stdout(), '', 'nothing started');
  });

  it('SIGTERM lets in-flight requests finish, then exits 0', { timeout: STARTUP_MS * 2 }, async () => {
    const port = await freePort();
    const env = {
      ...(await storage()),
      PORT: String(port),
      LOG_LEVEL: 'info',
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'root-password-1',
    };
    const proc = run(['src/main.ts'], env);
    children.push(proc.child);
    await waitFor(() => proc.stdout().includes('Server listening') || proc.child.exitCode !== null, 'the server to listen');
    assert.equal(proc.child.exitCode, null, proc.stderr());

    // Each login sends its headers and half of its body, so the server has begun all five requests
    // and cannot finish any of them until the rest of the body arrives, which is sent only after
    // the signal has been handled: the requests are certainly in flight at the shutdown.
    // Five: more simultaneous attempts on one account than the per-e-mail limit would be throttled.
    const body = JSON.stringify({ email: 'root@example.com', password: 'root-password-1' });
    const half = body.length >> 1;
    const logins = Array.from({ length: 5 }, () => {
      const request = httpRequest(`http://127.0.0.1:${port}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      });
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        request.on('response', (response) => {
          let text = '';
          response.on('data', (chunk) => (text += String(chunk)));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        });
        request.on('error', reject);
      });
      request.write(body.slice(0, half));
      return { request, answer };
    });
    const arrived = () => logLines(proc.stdout()).filter((l) => l.msg === 'incoming request' && (l.req as { url?: string })?.url === '/api/auth/login').length;
    await waitFor(() => arrived() === 5, 'the logins to arrive');
    proc.child.kill('SIGTERM');
    await waitFor(() => logLines(proc.stdout()).some((l) => String(l.msg).startsWith('shutting down')), 'the shutdown to begin');
    for (const { request } of logins) request.end(body.slice(half));

    const responses = await Promise.all(logins.map((login) => login.answer));
    assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 200, 200]);
    for (const response of responses) assert.equal((JSON.parse(response.text) as { token_type: string }).token_type, 'bearer');
    const { code, signal } = await proc.exited;
    assert.equal(signal, null);
    assert.equal(code, 0, proc.stderr());

    const lines = logLines(proc.stdout());
    const shutdownAt = lines.findIndex((l) => String(l.msg).startsWith('shutting down'));
    const completedAt = lines.map((l, i) => (l.msg === 'request completed' ? i : -1)).filter((i) => i >= 0);
    assert.ok(shutdownAt >= 0, 'the shutdown was logged');
    assert.equal(completedAt.length, 5);
    assert.ok(completedAt.every((i) => i > shutdownAt), 'the logins in flight at the signal completed after it');
    assert.ok(!lines.some((l) => Number(l.level) >= 50), 'no error was logged during the shutdown');
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`), 'the port is closed');
  });

  describe('cli users:create', () => {
    let env: Record<string, string | undefined>;
    let database: Database | undefined;
    after(async () => {
      // The PGlite directory of the CLI is closed here; this file's PostgreSQL database closes itself.
      if (database && !env.DATABASE_URL) await database.close();
    });

    const cli = async (...args: string[]) => {
      const proc = run(['src/cli.ts', ...args], env);
      children.push(proc.child);
      const { code } = await proc.exited;
      return { code, stdout: proc.stdout(), stderr: proc.stderr() };
    };

    it('creates an admin who can sign in with that password', { timeout: STARTUP_MS }, async () => {
      env = await storage();
      const result = await cli('users:create', '--email', 'Ops@Example.com', '--password', 'ops-password-1', '--role', 'admin', '--first-name', 'Ada');
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^created admin ops@example\.com \(id [0-9a-f-]{36}\)\n$/);
      database = env.DATABASE_URL ? await testDatabase() : await openDatabase({ dataDir: path.join(env.DATA_DIR!, 'pglite') });
      const [user] = await database.db.select().from(users).where(eq(users.email, 'ops@example.com'));
      assert.equal(user?.role, 'admin');
      assert.equal(user?.firstName, 'Ada');
      assert.ok(await verifyPassword('ops-password-1', user!.passwordHash));
      if (!env.DATABASE_URL) {
        await database.close();
        database = undefined;
      }
    });

    it('refuses a duplicate with exit code 1 and a clear message', { timeout: STARTUP_MS }, async () => {
      const result = await cli('users:create', '--email', 'ops@example.com', '--password', 'other-password', '--role', 'user');
      assert.equal(result.code, 1);
      assert.equal(result.stderr, 'error: A user with this email already exists\n');
      assert.equal(result.stdout, '');
    });

    it('refuses bad arguments with exit code 2, one line per problem, and the usage', { timeout: STARTUP_MS }, async () => {
      const result = await cli('users:create', '--email', 'nope', '--password', 'short', '--role', 'root');
      assert.equal(result.code, 2);
      const lines = result.stderr.split('\n');
      assert.deepEqual(lines.slice(0, 3), [
        'error: --email must be an e-mail address (got "nope")',
        'error: --password must be 8 to 128 characters',
        'error: --role must be one of user, admin (got "root")',
      ]);
      assert.match(result.stderr, /usage:\n {2}npm run cli -- users:create --email <email> --password <password>/);
      const unknown = await cli('users:drop');
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /^unknown command "users:drop"\nusage:/);
      const missing = await cli('users:create', '--email', 'x@example.com');
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /^error: --password is required\n/);
    });
  });
});
