// What a 422 echoes is bounded (decision 130): a large body missing a field, a list of many bad
// items or a very long string answers a few kilobytes, never a copy of what was sent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ECHO_LIMITS, ELLIPSIS, MASKED_INPUT, boundedIssues } from '../../../src/platform/http/errors.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';
import { buildValidationApp, client, issuesOf } from './validation-fixture.ts';

const KiB = 1024;

describe('422 answers are bounded whatever the request carried', () => {
  let t: TestApp;
  let fixture: FastifyInstance;
  before(async () => {
    t = await buildTestApp();
    fixture = await buildValidationApp();
  });
  after(async () => {
    await fixture.close();
    await t.close();
  });
  const { postThing } = client(() => fixture);

  it('anonymously: a 728 KB sign-up body missing both fields answers a few KiB, not the body twice', async () => {
    const body = { filler: 'x'.repeat(728 * 1000) };
    for (const url of ['/api/auth/register', '/api/auth/login']) {
      const response = await t.app.inject({ method: 'POST', url, payload: body });
      assert.equal(response.statusCode, 422, url);
      assert.ok(response.body.length < 16 * KiB, `${url}: ${response.body.length} bytes`);
      const detail = response.json().detail as { type: string; loc: string[]; input: { filler: string } }[];
      assert.deepEqual(
        detail.map((issue) => [issue.type, issue.loc]),
        [
          ['missing', ['body', 'email']],
          ['missing', ['body', 'password']],
        ],
      );
      // The body is still quoted as Pydantic quotes it, its long string cut short.
      const quoted = detail[0]!.input.filler;
      assert.equal(quoted, `${'x'.repeat(ECHO_LIMITS.stringChars)}${ELLIPSIS}`);
    }
  });

  it('a short input is echoed whole, as before', async () => {
    const body = { title: 'Buy' };
    assert.deepEqual(
      issuesOf(await postThing(body)).map((issue) => issue.input),
      [body, body],
    );
  });

  it('a list of 20,000 bad items lists the first 50 issues, the whole answer under 64 KiB', async () => {
    const permissions = Array.from({ length: 20_000 }, (_, i) => `bad-${i}`);
    const response = await postThing({ title: 'Many', count: 1, permissions });
    const issues = issuesOf(response);
    assert.equal(issues.length, ECHO_LIMITS.issues);
    assert.deepEqual(issues[0]!.loc, ['body', 'permissions', 0]);
    assert.deepEqual(issues.at(-1)!.loc, ['body', 'permissions', ECHO_LIMITS.issues - 1]);
    assert.ok(response.body.length < 64 * KiB, `${response.body.length} bytes`);
  });

  it('a large object missing a field: its echo is cut short after about 8 KiB, and says so', async () => {
    const meta = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`key-${i}`, 'v'.repeat(100)]));
    const response = await postThing({ title: 'Big', permissions: [], meta });
    const [issue] = issuesOf(response);
    assert.deepEqual(issue!.loc, ['body', 'count']);
    const echoed = (issue!.input as { meta: Record<string, unknown> }).meta;
    assert.ok(JSON.stringify(issue!.input).length <= ECHO_LIMITS.inputChars + 2 * ECHO_LIMITS.stringChars);
    assert.equal(echoed[ELLIPSIS], 'more fields');
    assert.equal(echoed['key-0'], 'v'.repeat(100));
  });

  it('pure: every input, loc key and the issue count are bounded; secrets stay masked at any depth', () => {
    const long = 'k'.repeat(10_000);
    const issues = boundedIssues(
      Array.from({ length: 500 }, (_, i) => ({
        type: 'value_error',
        loc: ['body', long, i],
        msg: 'Value error, no',
        input: {
          nested: { api_secret: 'hunter2-hunter2' },
          text: long,
          list: Array.from({ length: 3000 }, () => 'item'),
        },
      })),
    );
    assert.equal(issues.length, ECHO_LIMITS.issues);
    const text = JSON.stringify({ detail: issues });
    assert.ok(Buffer.byteLength(text) <= ECHO_LIMITS.answerBytes, `${Buffer.byteLength(text)} bytes`);
    assert.equal((issues[0]!.loc[1] as string).length, ECHO_LIMITS.keyChars + 1);
    const first = issues[0]!.input as { list: string[]; nested: { api_secret: string }; text: string };
    assert.equal(first.nested.api_secret, MASKED_INPUT);
    assert.match(first.list.at(-1)!, new RegExp(`^${ELLIPSIS} \\d+ more items$`));
    assert.ok(!text.includes('hunter2'));
    // A lone surrogate pair half is never produced by the cut.
    const [emoji] = boundedIssues([
      { type: 'x', loc: ['body'], msg: 'm', input: `${'a'.repeat(ECHO_LIMITS.stringChars - 1)}\u{1f600}` },
    ]);
    assert.equal(emoji!.input, `${'a'.repeat(ECHO_LIMITS.stringChars - 1)}${ELLIPSIS}`);
  });

  it('the secret at an issue loc is masked as before', async () => {
    const [issue] = issuesOf(await postThing({ title: 'Secret', count: 1, permissions: [], api_secret: 'short' }));
    assert.deepEqual([issue!.loc, issue!.input], [['body', 'api_secret'], MASKED_INPUT]);
  });
});
