// PostgreSQL on the same host, reached through its Unix socket (decision 1390): the URL's `host` parameter
// names the socket's directory, as node-postgres and libpq read it. A real process as `npm start` runs it,
// against the local server's socket, and one started at a directory that holds no socket.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import pg from 'pg';
import { describe, it } from '../../helpers/suite.ts';
import {
  freePort,
  killStarted,
  logLines,
  postJson,
  run,
  STARTUP_MS,
  startServer,
  storage,
} from '../../helpers/processes.ts';
import { withoutPostgres } from '../../helpers/services.ts';

const timeout = STARTUP_MS;

/** The local server's socket directory for `url`'s port, or why there is none to use here. */
async function socketDirectory(url: string): Promise<{ dir: string } | { none: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ unix_socket_directories: string }>('SHOW unix_socket_directories');
    const port = new URL(url).port || '5432';
    const dirs = rows[0]!.unix_socket_directories.split(',').map((dir) => dir.trim());
    const dir = dirs.find((candidate) => existsSync(path.join(candidate, `.s.PGSQL.${port}`)));
    return dir ? { dir } : { none: `no socket of PostgreSQL's port ${port} on this machine (${dirs.join(', ')})` };
  } finally {
    await client.end();
  }
}

describe('PostgreSQL through its Unix socket', () => {
  after(() => killStarted());

  it('a start on the socket: the start line names it, and the server reads and writes through it', {
    timeout,
    skip: withoutPostgres('no PostgreSQL whose socket to open'),
  }, async (t) => {
    const env = await storage();
    const found = await socketDirectory(env.DATABASE_URL!);
    if ('none' in found) return t.skip(found.none);
    const url = new URL(env.DATABASE_URL!);
    url.searchParams.set('host', found.dir);
    const port = url.port || '5432';
    // The URL's own host is not where it connects: a name that resolves nowhere proves it.
    url.hostname = 'not-a-host.invalid';
    const server = await startServer({ ...env, DATABASE_URL: url.toString() });
    try {
      const listening = logLines(server.stdout()).find((line) => String(line.msg).startsWith('listening at'));
      const database = new URL(env.DATABASE_URL!).pathname.slice(1);
      assert.match(
        String(listening?.msg),
        new RegExp(`; database PostgreSQL ${path.join(found.dir, `.s.PGSQL.${port}`)} \\(${database}\\);`),
      );
      const registered = await postJson(`${server.url}/api/auth/register`, {
        email: 'socket@example.com',
        password: 'socket-password-1',
      });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      const login = await postJson(`${server.url}/api/auth/login`, {
        email: 'socket@example.com',
        password: 'socket-password-1',
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  it('a socket directory without a socket: one line naming DATABASE_URL and the socket it looked for', {
    timeout,
  }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tp-no-socket-'));
    const proc = run(['main'], {
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tp-start-')),
      PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
      DATABASE_URL: `postgres://postgres@localhost/trading?host=${dir}&port=6543`,
    });
    const { code } = await proc.exited;
    const lines = proc
      .stderr()
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('warning: Node'));
    assert.equal(code, 1);
    assert.deepEqual(lines, [
      `error: DATABASE_URL: no PostgreSQL socket at ${dir}/.s.PGSQL.6543; start PostgreSQL there or correct the ` +
        'host (its socket directory) and port',
    ]);
  });
});
