// JSON bodies refused before parsing: too deeply nested, or not UTF-8 (decision 095). Both answer
// FastAPI's `json_invalid` 422 at the character where reading stopped.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { excessNesting, firstInvalidUtf8, MAX_JSON_DEPTH } from '../../../src/platform/http/json-body.ts';
import { buildValidationApp, ID, issuesOf, validThing } from './validation-fixture.ts';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

describe('nesting depth', () => {
  it('finds the bracket that opens one level too many', () => {
    assert.equal(excessNesting(Buffer.from(nested(MAX_JSON_DEPTH))), -1);
    assert.equal(excessNesting(Buffer.from(nested(MAX_JSON_DEPTH + 1))), MAX_JSON_DEPTH);
    assert.equal(
      excessNesting(Buffer.from(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`)),
      5 + 5 * (MAX_JSON_DEPTH - 1),
    );
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const inString = JSON.stringify({ text: `"${'['.repeat(500)}\\"${'{'.repeat(500)}` });
    assert.equal(excessNesting(Buffer.from(inString)), -1);
  });

  it('is not fooled by stray closing brackets before the deep part', () => {
    assert.equal(
      excessNesting(Buffer.from(`${']'.repeat(1000)}${'['.repeat(MAX_JSON_DEPTH + 1)}`)),
      1000 + MAX_JSON_DEPTH,
    );
  });
});

describe('UTF-8', () => {
  it('accepts well-formed text in every sequence length', () => {
    assert.equal(firstInvalidUtf8(Buffer.from('a é € 😀 \u{10FFFF}')), -1);
  });

  it('finds the first byte of a malformed sequence', () => {
    const cases: [number[], number][] = [
      [[0x61, 0xff], 1], // never valid
      [[0x61, 0xc3], 1], // truncated
      [[0xc0, 0xaf], 0], // overlong '/'
      [[0xe0, 0x80, 0xaf], 0], // overlong
      [[0xed, 0xa0, 0x80], 0], // UTF-16 surrogate
      [[0xf4, 0x90, 0x80, 0x80], 0], // above U+10FFFF
      [[0x62, 0xe2, 0x82, 0x41], 1], // bad continuation
    ];
    for (const [bytes, at] of cases)
      assert.equal(firstInvalidUtf8(Uint8Array.from(bytes)), at, Buffer.from(bytes).toString('hex'));
  });
});

describe('JSON bodies on a route', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await buildValidationApp();
  });
  after(async () => {
    await app.close();
  });
  const post = (payload: string | Buffer) =>
    app.inject({ method: 'POST', url: `/things/${ID}`, headers: { 'content-type': 'application/json' }, payload });

  it(`a body nested ${MAX_JSON_DEPTH} levels deep is parsed and validated as usual`, async () => {
    // The body object is one level, `meta` and the objects inside it the other 63.
    const meta = JSON.parse(`${'{"m":'.repeat(MAX_JSON_DEPTH - 1)}1${'}'.repeat(MAX_JSON_DEPTH - 1)}`);
    const response = await post(JSON.stringify({ ...validThing, meta }));
    assert.equal(response.statusCode, 200, response.body);
  });

  it('a NUL deep inside an accepted body is still found', async () => {
    const meta = JSON.parse(`${'{"m":'.repeat(MAX_JSON_DEPTH - 1)}"a\\u0000"${'}'.repeat(MAX_JSON_DEPTH - 1)}`);
    const [issue] = issuesOf(await post(JSON.stringify({ ...validThing, meta })));
    assert.equal(issue!.type, 'value_error');
    assert.deepEqual(issue!.loc, ['body', 'meta', ...Array<string>(MAX_JSON_DEPTH - 1).fill('m')]);
  });

  it('a body nested thousands of levels deep (6.5 KB) answers 422 json_invalid at the bracket too many', async () => {
    for (const body of [nested(3230), nested(3230, '{"a":', '}'), `{"meta":${nested(3230)}}`, '['.repeat(100_000)]) {
      const [issue] = issuesOf(await post(body));
      assert.equal(issue!.type, 'json_invalid');
      assert.equal(issue!.msg, 'JSON decode error');
      assert.match(String(issue!.ctx!.error), /^Recursion limit exceeded: more than 64 nested arrays or objects$/);
      assert.equal(body.slice(0, Number(issue!.loc[1]) + 1).split(/[[{]/).length - 1, MAX_JSON_DEPTH + 1);
    }
  });

  it(
    'invalid UTF-8 inside a string answers 422 json_invalid ' + 'at that character, not a replacement character',
    async () => {
      const body = Buffer.concat([
        Buffer.from('{"title":"Caf\u00e9 '),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('","count":1,"permissions":["read"]}'),
      ]);
      const issues = issuesOf(await post(body));
      assert.deepEqual(issues, [
        {
          type: 'json_invalid',
          loc: ['body', 15],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: 'Invalid UTF-8: byte 0xff cannot be decoded' },
        },
      ]);
    },
  );

  it('valid multi-byte text is accepted unchanged', async () => {
    const response = await post(Buffer.from(JSON.stringify({ ...validThing, title: 'Café € 😀' }), 'utf8'));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json<{ body: { title: string } }>().body.title, 'Café € 😀');
  });
});
