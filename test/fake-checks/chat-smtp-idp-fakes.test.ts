// The chat receivers, the SMTP relay and the identity provider must behave like the real ones:
// their limits and refusals are what the tests of our code rely on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import nodemailer from 'nodemailer';
import { startChatReceiver, type ChatReceiver } from '../fakes/chat-webhook.ts';
import { startIdentityProvider, type IdentityProvider } from '../fakes/identity-provider.ts';
import { startSmtpFake, type SmtpFake } from '../fakes/smtp.ts';

const post = (url: string, body: unknown, contentType = 'application/json') =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('chat receiver fakes', () => {
  let slack: ChatReceiver;
  let discord: ChatReceiver;
  before(async () => {
    slack = await startChatReceiver({ flavor: 'slack' });
    discord = await startChatReceiver({ flavor: 'discord' });
  });
  after(async () => {
    await slack.close();
    await discord.close();
  });

  it('Slack: 200 ok for a message, plain-text error codes for what Slack refuses', async () => {
    const ok = await post(slack.url, { text: 'hello' });
    assert.deepEqual([ok.status, await ok.text()], [200, 'ok']);
    const empty = await post(slack.url, {});
    assert.deepEqual([empty.status, await empty.text()], [400, 'no_text']);
    const header = await post(slack.url, {
      text: 'x',
      blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }],
    });
    assert.deepEqual([header.status, await header.text()], [400, 'invalid_blocks']);
    const notJson = await post(slack.url, 'text=x', 'application/x-www-form-urlencoded');
    assert.deepEqual([notJson.status, await notJson.text()], [400, 'invalid_payload']);
    assert.deepEqual(slack.accepted, [{ text: 'hello' }]);
  });

  it('Discord: 204 for a message, 50035 for a body Discord refuses', async () => {
    const ok = await post(discord.url, { content: 'hello' });
    assert.equal(ok.status, 204);
    const long = await post(discord.url, { content: 'c'.repeat(2001) });
    assert.equal(long.status, 400);
    assert.equal(((await long.json()) as { code: number }).code, 50035);
  });

  it('answers a canned 429 with its Retry-After, then behaves again', async () => {
    slack.respondNext({ status: 429, body: 'rate_limited', headers: { 'retry-after': '7' } });
    const limited = await post(slack.url, { text: 'x' });
    assert.deepEqual([limited.status, limited.headers.get('retry-after')], [429, '7']);
    assert.equal((await post(slack.url, { text: 'y' })).status, 200);
  });
});

describe('SMTP fake', () => {
  let smtp: SmtpFake;
  before(async () => {
    smtp = await startSmtpFake();
  });
  after(async () => {
    await smtp.close();
  });

  it('keeps what it receives, and refuses chosen recipients with 550 as a relay does', async () => {
    const transport = nodemailer.createTransport(smtp.url);
    await transport.sendMail({ from: 'a@example.com', to: 'b@example.com', subject: 'Hi', text: 'body' });
    assert.equal(smtp.received.length, 1);
    assert.deepEqual(smtp.received[0]!.to, ['b@example.com']);
    assert.equal(smtp.received[0]!.headers.subject, 'Hi');
    smtp.rejectRecipients.add('gone@example.com');
    await assert.rejects(
      transport.sendMail({ from: 'a@example.com', to: 'gone@example.com', subject: 'x', text: 'y' }),
      (error: { responseCode?: number }) => error.responseCode === 550,
    );
    assert.equal(smtp.received.length, 1, 'the refused mail was not kept');
    transport.close();
  });
});

describe('identity provider fake', () => {
  let idp: IdentityProvider;
  before(async () => {
    idp = await startIdentityProvider();
  });
  after(async () => {
    await idp.close();
  });

  it("issues tokens its published keys verify, with Supabase's claims and one subject per user", async () => {
    const keys = createRemoteJWKSet(new URL(idp.jwksUrl));
    const token = await idp.issue({ email: 'ada@example.com' });
    const { payload } = await jwtVerify(token, keys, { issuer: idp.issuer, audience: 'authenticated' });
    assert.equal(payload.email, 'ada@example.com');
    assert.equal((payload.user_metadata as { email_verified: boolean }).email_verified, true);
    assert.equal(payload.email_verified, true, 'the claim a verified address is proven by');
    assert.equal(
      decodeJwt(await idp.issue({ email: 'ada@example.com', alg: 'ES256' })).sub,
      payload.sub,
      'the same user keeps its subject',
    );
    assert.notEqual(decodeJwt(await idp.issue({ email: 'bob@example.com' })).sub, payload.sub);
  });

  it('signs with a foreign key on request, which its keys refuse, and fails its key endpoint on request', async () => {
    const keys = createRemoteJWKSet(new URL(idp.jwksUrl));
    await assert.rejects(jwtVerify(await idp.issue({ signWithForeignKey: true }), keys));
    idp.failNext({ status: 503 });
    assert.equal((await fetch(idp.jwksUrl)).status, 503);
    assert.equal((await fetch(idp.jwksUrl)).status, 200);
  });
});
