// Refused deliveries are logged at warn, without a stack, a body or a signature, and not once per
// request: the first per provider and reason, then a count per interval (decision 060).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REFUSAL_LOG_INTERVAL_MS } from '../../../src/modules/webhooks/admission.service.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { githubDelivery } from '../../fakes/webhook-senders.ts';
import { NOW, SECRETS, send } from './webhooks-kit.ts';

const CODEHOST = '/api/webhooks/platforms/codehost';
const BODY_MARK = 'body-text-that-must-not-be-logged';

describe('the log of refused deliveries', () => {
  let t: TestApp;
  const clock = fixedClock(NOW);
  before(async () => {
    t = await buildTestApp({
      env: { ...SECRETS, MAILER_WEBHOOK_SECRET: undefined },
      clock,
      // The positive control: a route whose failure is logged at error level with its stack.
      routes: async (app) => {
        app.get('/test/fails', async () => {
          throw new Error('a bug of ours');
        });
      },
    });
  });
  after(async () => {
    await t.close();
  });
  const lines = () => t.logLines();
  const refusals = () => lines().filter((line) => String(line.msg).startsWith('webhook deliver'));
  const wrong = () => githubDelivery('not the secret', 'push', { ref: 'refs/heads/main', note: BODY_MARK });

  it('captures an error with its stack when one happens (the capture works)', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/test/fails' })).statusCode, 500);
    const failure = lines().find((line) => line.level === 50);
    assert.match(String((failure?.err as { stack?: string } | undefined)?.stack), /a bug of ours/);
  });

  it('logs a refused signature once at warn, with provider and reason and nothing of the request', async () => {
    const before = lines().length;
    const delivery = wrong();
    assert.equal((await send(t, CODEHOST, delivery)).statusCode, 401);
    const added = lines().slice(before);
    const warned = added.filter((line) => line.level === 40);
    assert.equal(warned.length, 1);
    assert.deepEqual(
      { msg: warned[0]!.msg, provider: warned[0]!.provider, reason: warned[0]!.reason },
      { msg: 'webhook delivery rejected', provider: 'codehost', reason: 'invalid' },
    );
    assert.equal(added.filter((line) => Number(line.level) >= 50).length, 0);
    const text = JSON.stringify(added);
    assert.ok(!text.includes('stack') && !text.includes('"err"'));
    assert.ok(!text.includes(BODY_MARK));
    assert.ok(!text.includes(delivery.headers['x-hub-signature-256']!.slice('sha256='.length)));
  });

  it('counts further refusals of the interval instead of logging each, then logs their number', async () => {
    const before = refusals().length;
    for (let i = 0; i < 25; i++) assert.equal((await send(t, CODEHOST, wrong())).statusCode, 401);
    assert.equal(refusals().length, before);
    clock.advance(REFUSAL_LOG_INTERVAL_MS);
    await send(t, CODEHOST, wrong());
    const added = refusals().slice(before);
    assert.deepEqual(
      added.map((line) => [line.level, line.msg, line.provider, line.reason, line.rejected]),
      [
        [40, 'webhook deliveries rejected', 'codehost', 'invalid', 25],
        [40, 'webhook delivery rejected', 'codehost', 'invalid', undefined],
      ],
    );
  });

  it('logs another reason of the same provider on its own', async () => {
    const before = refusals().length;
    await send(t, CODEHOST, wrong(), { 'x-hub-signature-256': undefined });
    assert.deepEqual(
      refusals()
        .slice(before)
        .map((line) => [line.provider, line.reason]),
      [['codehost', 'missing']],
    );
  });

  it('logs a receiver without a secret at warn too, never as an error with a stack', async () => {
    const before = lines().length;
    for (let i = 0; i < 3; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/mailer',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(response.statusCode, 503);
    }
    const added = lines().slice(before);
    assert.deepEqual(
      added.filter((line) => line.level === 40).map((line) => [line.msg, line.provider, line.reason]),
      [['webhook delivery rejected', 'mailer', 'unconfigured']],
    );
    assert.equal(added.filter((line) => Number(line.level) >= 50).length, 0);
    assert.ok(!JSON.stringify(added).includes('stack'));
  });
});
