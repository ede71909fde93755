// A start that DATABASE_URL or REDIS_URL gets wrong says so in one line naming the setting, and
// exits 1: a database that does not exist, nothing listening, a role PostgreSQL refuses. Real
// processes (as `npm start` runs them) against the local PostgreSQL and an unused port.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { describe, it } from '../../helpers/suite.ts';
import { freePort, killStarted, logLines, run, STARTUP_MS, startServer } from '../../helpers/processes.ts';
import { withoutPostgres } from '../../helpers/services.ts';

const POSTGRES = process.env.DATABASE_URL;
const timeout = STARTUP_MS;

/** The server's stderr once it exited, without the warning a Node outside `engines` gets. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  const proc = run(['main'], {
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tp-start-')),
    PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    ...env,
  });
  const { code } = await proc.exited;
  const stderr = proc.stderr().replace(/^warning: Node v\S+ is outside the versions .*\n/, '');
  return { code, lines: stderr.split('\n').filter((line) => line !== '') };
}

/** The local server's URL with another database, user or password. */
function variant(change: (url: URL) => void): string {
  const url = new URL(POSTGRES!);
  change(url);
  return url.toString();
}

describe('a start that its settings get wrong: one line naming the setting', () => {
  after(() => killStarted());

  it('DATABASE_URL with nothing listening at its port', { timeout }, async () => {
    const port = await freePort();
    const { code, lines } = await failedStart({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/trading` });
    assert.equal(code, 1);
    assert.deepEqual(lines, [
      `error: DATABASE_URL: nothing accepts connections at 127.0.0.1:${port} (connection refused); start ` +
        'PostgreSQL there or correct the host and port',
    ]);
  });

  describe('on the local PostgreSQL', {
    skip: withoutPostgres('no PostgreSQL to name a missing database on'),
  }, () => {
    it('DATABASE_URL naming a database that does not exist', { timeout }, async () => {
      const url = variant((u) => (u.pathname = '/no_such_db_xyz'));
      const { code, lines } = await failedStart({ DATABASE_URL: url });
      assert.equal(code, 1);
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(
        lines[0]!,
        /^error: DATABASE_URL: the database "no_such_db_xyz" does not exist on [^ ]+:\d+; create it \(e\.g\. createdb .* no_such_db_xyz\) or name an existing one$/,
      );
    });

    it('DATABASE_URL with a user PostgreSQL refuses', { timeout }, async () => {
      const url = variant((u) => {
        u.username = 'no_such_role_xyz';
        u.password = 'wrong-password';
      });
      const { code, lines } = await failedStart({ DATABASE_URL: url });
      assert.equal(code, 1);
      assert.equal(lines.length, 1, lines.join('\n'));
      // Which of the two PostgreSQL says depends on its pg_hba.conf: no such role, or a wrong password.
      assert.match(
        lines[0]!,
        /^error: DATABASE_URL: PostgreSQL at [^ ]+:\d+ refused (user "no_such_role_xyz"|the password of user "no_such_role_xyz")/,
      );
      assert.doesNotMatch(lines[0]!, /wrong-password/);
    });
  });

  it('REDIS_URL refused at start: the server starts on process memory and says so in one warning naming REDIS_URL', {
    timeout,
  }, async () => {
    const port = await freePort();
    const server = await startServer({
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tp-start-')),
      REDIS_URL: `redis://127.0.0.1:${port}`,
    });
    try {
      const warnings = logLines(server.stdout()).filter((line) => String(line.msg).includes('REDIS_URL'));
      assert.equal(warnings.length, 1, server.stdout());
      assert.match(
        String(warnings[0]!.msg),
        /^redis unreachable at start: answering from process memory until it answers \(REDIS_URL\)$/,
      );
    } finally {
      await server.stop();
    }
  });
});
