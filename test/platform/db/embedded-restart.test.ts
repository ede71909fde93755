// The embedded server as a container runs it: the first process of its own PID namespace, under a
// umask of 0 (as many images leave it). Killed with SIGKILL and started again on the same DATA_DIR,
// it is pid 1 again and finds a lock naming pid 1; it must serve again with nothing lost. And its
// DATA_DIR, the database files and the generated secrets are the owner's only (decision 120).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from '../../helpers/suite.ts';
import { killStarted, startServer } from '../../helpers/processes.ts';

/** Runs node as pid 1 of a new PID namespace, under umask 0; killing the wrapper kills the server. */
const CONTAINER = [
  'unshare',
  '--pid',
  '--fork',
  '--mount-proc',
  '--kill-child',
  '--',
  'sh',
  '-c',
  'umask 000; exec "$@"',
  'sh',
];
const canUnshare =
  process.platform === 'linux' && spawnSync(CONTAINER[0]!, [...CONTAINER.slice(1), 'true']).status === 0;
const reason = 'needs Linux PID namespaces (unshare(1) as root) to run the server as pid 1';

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

/** The pid, seen from here, of the wrapper's child: the server, pid 1 inside its namespace. */
function serverPid(wrapperPid: number): number {
  const children = readFileSync(`/proc/${wrapperPid}/task/${wrapperPid}/children`, 'utf8').trim().split(' ');
  return Number(children[0]);
}

describe('the embedded server as pid 1 of a container', { skip: !canUnshare && !process.env.CI && reason }, () => {
  after(killStarted);

  it('serves again after SIGKILL with nothing lost, on a DATA_DIR only its owner can read', async () => {
    const env = { DATA_DIR: path.join(mkdtempSync(path.join(tmpdir(), 'tp-pid1-')), 'data'), SCHEDULER: 'off' };
    // A volume made by someone else, open to all.
    mkdirSync(env.DATA_DIR);
    chmodSync(env.DATA_DIR, 0o777);
    const warning = 'DATA_DIR was open to others';
    const first = await startServer(env, CONTAINER);
    assert.ok(first.stdout().includes(warning), 'the first start says it closed DATA_DIR');
    const account = { email: 'kept@example.com', password: 'kept-password-1' };
    const registered = await fetch(`${first.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    });
    assert.equal(registered.status, 201, await registered.text());
    assert.equal(
      readFileSync(`${path.join(env.DATA_DIR, 'pglite')}.lock`, 'utf8').split('\n')[0],
      '1',
      'the lock names pid 1',
    );

    process.kill(serverPid(first.child.pid!), 'SIGKILL');
    await first.exited;

    const second = await startServer(env, CONTAINER);
    const login = await fetch(`${second.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(account),
    });
    assert.equal(login.status, 200, `${await login.text()} ${second.stderr()}`);
    assert.deepEqual(exposed(env.DATA_DIR), [], 'nothing under DATA_DIR is open to a group or others');
    assert.equal(lstatSync(env.DATA_DIR).mode & 0o777, 0o700);
    assert.ok(!second.stdout().includes(warning), 'a start finds nothing to say once DATA_DIR is closed');
    // The wrapper waits for its child and answers its exit status; a signal is the server's to take.
    process.kill(serverPid(second.child.pid!), 'SIGTERM');
    assert.deepEqual(await second.exited, { code: 0, signal: null });
  });
});
