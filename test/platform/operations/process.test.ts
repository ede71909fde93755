// The service as operators run it: the built dist/ (as `npm start` runs it, rebuilt first when a
// source is newer), real processes, real signals, real exit codes. The CLI is in cli.test.ts.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, describe, it } from 'node:test';
import { freePort, killStarted, logLines, run, STARTUP_MS, storage, waitFor } from '../../helpers/processes.ts';

describe('operations', () => {
  after(killStarted);

  it('invalid configuration stops the start with one line per problem and exit code 1', {
    timeout: STARTUP_MS,
  }, async () => {
    const env = { ...(await storage()), PORT: 'abc', ADMIN_EMAIL: 'admin@example.com', LOG_LEVEL: 'loud' };
    const proc = run(['main'], env);
    const { code } = await proc.exited;
    assert.equal(code, 1);
    // Only the configuration's lines: on a Node outside `engines` the launcher adds its own warning.
    const problems = proc
      .stderr()
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('warning: Node'));
    assert.deepEqual(problems.sort(), [
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
    const proc = run(['main'], env);
    await waitFor(
      () => proc.stdout().includes('"msg":"listening at') || proc.child.exitCode !== null,
      'the server to listen',
    );
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
    const arrived = () =>
      logLines(proc.stdout()).filter(
        (l) => l.msg === 'incoming request' && (l.req as { url?: string })?.url === '/api/auth/login',
      ).length;
    await waitFor(() => arrived() === 5, 'the logins to arrive');
    proc.child.kill('SIGTERM');
    await waitFor(
      () => logLines(proc.stdout()).some((l) => String(l.msg).startsWith('shutting down')),
      'the shutdown to begin',
    );
    for (const { request } of logins) request.end(body.slice(half));

    const responses = await Promise.all(logins.map((login) => login.answer));
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 200, 200, 200, 200],
    );
    for (const response of responses)
      assert.equal((JSON.parse(response.text) as { token_type: string }).token_type, 'bearer');
    const { code, signal } = await proc.exited;
    assert.equal(signal, null);
    assert.equal(code, 0, proc.stderr());

    const lines = logLines(proc.stdout());
    const shutdownAt = lines.findIndex((l) => String(l.msg).startsWith('shutting down'));
    const completedAt = lines.map((l, i) => (l.msg === 'request completed' ? i : -1)).filter((i) => i >= 0);
    assert.ok(shutdownAt >= 0, 'the shutdown was logged');
    assert.equal(completedAt.length, 5);
    assert.ok(
      completedAt.every((i) => i > shutdownAt),
      'the logins in flight at the signal completed after it',
    );
    assert.ok(!lines.some((l) => Number(l.level) >= 50), 'no error was logged during the shutdown');
    await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`), 'the port is closed');
  });
});
