// SIGTERM on the real built service: requests on kept-alive connections just after the signal are
// answered (never reset), and a chat receiver that never answers does not hold the exit: the post
// is aborted, its row given back, and delivered once by the next process.
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { after, describe, it } from 'node:test';
import { startChatReceiver } from '../../fakes/chat-webhook.ts';
import {
  freePort,
  killStarted,
  logLines,
  run,
  STARTUP_MS,
  storage,
  waitFor,
  type Env,
} from '../../helpers/processes.ts';

interface Answer {
  status: number;
  connection: string | undefined;
  reused: boolean;
}

function get(agent: Agent, port: number, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, agent }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          connection: response.headers.connection,
          reused: request.reusedSocket,
        }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

async function start(env: Env) {
  const port = await freePort();
  const proc = run(['main'], { LOG_LEVEL: 'info', ...env, PORT: String(port) });
  await waitFor(
    () => proc.stdout().includes('"msg":"listening at') || proc.child.exitCode !== null,
    'the server to listen',
  );
  assert.equal(proc.child.exitCode, null, proc.stderr());
  return { ...proc, port };
}

describe('SIGTERM', () => {
  after(killStarted);

  it('answers every request sent on open keep-alive connections after the signal: 503 ' +
    'with Connection: close, no resets', {
    timeout: STARTUP_MS * 2,
  }, async () => {
    const proc = await start(await storage());
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    // Twenty connections kept alive, idle at the signal.
    const first = await Promise.all(Array.from({ length: 20 }, () => get(agent, proc.port, '/healthz')));
    assert.ok(first.every((answer) => answer.status === 200));
    proc.child.kill('SIGTERM');
    await waitFor(
      () => logLines(proc.stdout()).some((l) => String(l.msg).startsWith('shutting down')),
      'the shutdown to begin',
      10_000,
    );
    const answers = await Promise.all(Array.from({ length: 20 }, () => get(agent, proc.port, '/healthz')));
    assert.equal(answers.filter((answer) => answer.reused).length, 20, 'sent on the connections already open');
    for (const answer of answers) {
      assert.equal(answer.status, 503);
      assert.equal(answer.connection, 'close');
    }
    const { code } = await proc.exited;
    assert.equal(code, 0, proc.stderr());
    agent.destroy();
  });

  it('a REDIS_URL unreachable at start: one warning line, password masked; logins work, ' +
    '/readyz degraded; SIGTERM is quick', {
    timeout: STARTUP_MS * 2,
  }, async () => {
    const redisPort = await freePort();
    const proc = await start({
      ...(await storage()),
      REDIS_URL: `redis://app:redis-pass-0123@127.0.0.1:${redisPort}/0`,
      ADMIN_EMAIL: 'root@example.com',
      ADMIN_PASSWORD: 'root-password-1',
    });
    const base = `http://127.0.0.1:${proc.port}`;
    const started = performance.now();
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'root@example.com', password: 'root-password-1' }),
    });
    assert.equal(login.status, 200, await login.text());
    // A command queued for a Redis that never comes would hold the login for ever; the bound leaves the
    // password hash its time on a busy machine.
    assert.ok(performance.now() - started < 10_000);
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { status: string }).status, 'degraded');
    const warnings = logLines(proc.stdout()).filter((l) => String(l.msg).startsWith('redis unreachable at start'));
    assert.equal(warnings.length, 1, proc.stdout());
    assert.equal(warnings[0]!.redis, `redis://****:****@127.0.0.1:${redisPort}/0`);
    assert.ok(!proc.stdout().includes('redis-pass-0123') && !proc.stderr().includes('redis-pass-0123'));
    const signalled = performance.now();
    proc.child.kill('SIGTERM');
    // Exit 0, not the forced exit (1) of the 10 s shutdown timeout: nothing waited for Redis.
    assert.equal((await proc.exited).code, 0);
    assert.ok(performance.now() - signalled < 9_000);
  });

  it('exits within 10 s while a chat receiver never answers; the aborted rows are delivered once later', {
    timeout: STARTUP_MS * 3,
  }, async () => {
    const receiver = await startChatReceiver({ flavor: 'slack' });
    after(() => receiver.close());
    receiver.respondNext('hang');
    const env = {
      ...(await storage()),
      CHAT_WEBHOOK_URL: `${receiver.url}/hook`,
      CHAT_WEBHOOK_FORMAT: 'slack',
      CHAT_WEBHOOK_TIMEOUT_MS: '60000',
      DATABASE_WEBHOOK_SECRET: 'database-webhook-secret-0123456789',
    };
    const proc = await start(env);
    const emails = ['one@example.com', 'two@example.com', 'three@example.com'];
    for (const email of emails) {
      const response = await fetch(`http://127.0.0.1:${proc.port}/api/webhooks/platforms/database`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${env.DATABASE_WEBHOOK_SECRET}` },
        body: JSON.stringify({ type: 'INSERT', table: 'users', schema: 'public', record: { id: email, email } }),
      });
      assert.ok(response.status < 300, `${response.status} ${await response.text()}`);
    }
    await waitFor(() => receiver.received.length >= 1, 'the first post to reach the receiver', 20_000);
    const signalled = performance.now();
    proc.child.kill('SIGTERM');
    const { code } = await proc.exited;
    const tookMs = performance.now() - signalled;
    assert.equal(code, 0, proc.stderr());
    assert.ok(tookMs < 10_000, `exited after ${Math.round(tookMs)} ms`);
    assert.ok(
      logLines(proc.stdout()).some((l) => l.msg === 'outbox delivery stopped by shutdown; the row is given back'),
    );
    assert.equal(receiver.accepted.length, 0);

    // The next process delivers every message exactly once.
    const next = await start(env);
    await waitFor(() => receiver.accepted.length >= emails.length, 'the messages to be delivered', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const texts = receiver.accepted.map((body) => JSON.stringify(body));
    for (const email of emails)
      assert.equal(texts.filter((text) => text.includes(email)).length, 1, `${email} delivered once`);
    next.child.kill('SIGTERM');
    assert.equal((await next.exited).code, 0);
  });
});
