// The server started under a umask of 0 (as many container images leave it) keeps what it writes in
// DATA_DIR to its owner (decision 120): its own umask is 077 from the start, so files PostgreSQL
// writes later (the relation cache's init files, new WAL segments) are not group or world readable,
// and nothing under DATA_DIR is after a session of requests and a stop.
import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from '../../helpers/suite.ts';
import { killStarted, startServer } from '../../helpers/processes.ts';

/** Runs node under umask 0; `exec` keeps the server's pid the spawned one. */
const UMASK_0 = ['sh', '-c', 'umask 000; exec "$@"', 'sh'];

/** Paths under `root` (itself included) that a group or others may read, write or enter. */
function exposed(root: string): string[] {
  const found: string[] = [];
  const visit = (location: string) => {
    const stat = lstatSync(location);
    if (!stat.isSymbolicLink() && stat.mode & 0o077)
      found.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(root, location)}`);
    if (stat.isDirectory()) for (const name of readdirSync(location)) visit(path.join(location, name));
  };
  visit(root);
  return found;
}

/** The process's umask as Linux reports it (`Umask:` of /proc/<pid>/status, since Linux 4.7). */
function umaskOf(pid: number): number | undefined {
  const line = /^Umask:\s+([0-7]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number.parseInt(line[1]!, 8) : undefined;
}
const reportsUmask = process.platform === 'linux' && umaskOf(process.pid) !== undefined;

describe('DATA_DIR under a umask of 0', {
  skip: !reportsUmask && 'needs Linux, whose /proc/<pid>/status reports a process umask',
}, () => {
  after(killStarted);

  it("sets the server's umask to 077 first, so nothing it writes in DATA_DIR is open to others", async () => {
    const env = { DATA_DIR: path.join(mkdtempSync(path.join(tmpdir(), 'tp-umask-')), 'data'), SCHEDULER: 'off' };
    const server = await startServer(env, UMASK_0);
    assert.equal(umaskOf(server.child.pid!), 0o077, 'the server runs with umask 077 though started under 0');
    const registered = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'umask@example.com', password: 'umask-password-1' }),
    });
    assert.equal(registered.status, 201, await registered.text());
    assert.equal(await server.stop(), 0);
    assert.deepEqual(exposed(env.DATA_DIR), [], 'nothing under DATA_DIR is open to a group or others');
  });
});
