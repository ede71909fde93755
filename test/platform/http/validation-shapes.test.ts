// The 422 shape for closed sets, formats, containers and malformed JSON, and how issues are
// reported together; same app and expectations as validation.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertExactIssue, ID, issueAt, issuesOf, validationApp, validThing } from './validation-fixture.ts';

describe('422 validation errors in the Pydantic v2 shape: sets, formats, containers, JSON, reporting', () => {
  const { getItem, inject, postRaw, postThing } = validationApp();

  describe('closed sets', () => {
    it('enum lists the values as Pydantic does', async () => {
      assertExactIssue(await getItem('name=abc&sort=up'), {
        type: 'enum',
        loc: ['query', 'sort'],
        msg: "Input should be 'asc' or 'desc'",
        input: 'up',
        ctx: { expected: "'asc' or 'desc'" },
      });
    });

    it("literal_error with \"'a', 'b' or 'c'\"", async () => {
      assertExactIssue(await getItem('name=abc&kind=d'), {
        type: 'literal_error',
        loc: ['query', 'kind'],
        msg: "Input should be 'a', 'b' or 'c'",
        input: 'd',
        ctx: { expected: "'a', 'b' or 'c'" },
      });
    });

    it('a union of literals is one literal_error listing all of them, whatever the input type', async () => {
      const expected = "'critical', 'high', 'medium' or 'low'";
      for (const priority of ['urgent', 5]) {
        assertExactIssue(await postThing({ ...validThing, priority }), {
          type: 'literal_error',
          loc: ['body', 'priority'],
          msg: `Input should be ${expected}`,
          input: priority,
          ctx: { expected },
        });
      }
    });

    it('list items are located by integer index', async () => {
      const permissions = ['read', 'fly', 'trade', 'x'];
      const issues = issuesOf(await postThing({ ...validThing, permissions }));
      assert.deepEqual(
        issues.map((issue) => [issue.type, issue.loc, issue.input]),
        [
          ['enum', ['body', 'permissions', 1], 'fly'],
          ['enum', ['body', 'permissions', 3], 'x'],
        ],
      );
      assert.equal(typeof issues[0]!.loc[2], 'number');
    });
  });

  describe('formats', () => {
    it('uuid_parsing with the uuid crate messages', async () => {
      const cases: [string, string][] = [
        [
          'nope',
          'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1',
        ],
        ['1234', 'invalid length: expected length 32 for simple format, found 4'],
        ['12345678-1234-1234-1234', 'invalid group count: expected 5, found 4'],
        ['12345678-1234-1234-1234-1234567890123', 'invalid group length in group 4: expected 12, found 13'],
      ];
      for (const [input, error] of cases) {
        assertExactIssue(await getItem('name=abc', undefined, input), {
          type: 'uuid_parsing',
          loc: ['path', 'item_id'],
          msg: `Input should be a valid UUID, ${error}`,
          input,
          ctx: { error },
        });
      }
    });

    it('uuids in other accepted spellings reach the handler lower-case and hyphenated', async () => {
      const response = await getItem('name=abc', undefined, ID.replaceAll('-', '').toUpperCase());
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().params.item_id, ID);
      const body = await postThing({ ...validThing, blocked_by: [ID.toUpperCase()] });
      assert.deepEqual(body.json().body.blocked_by, [ID]);
    });

    it("datetime_from_date_parsing with Pydantic's reason", async () => {
      assertExactIssue(await getItem('name=abc&since=2024-13-01'), {
        type: 'datetime_from_date_parsing',
        loc: ['query', 'since'],
        msg: 'Input should be a valid datetime or date, month value is outside expected range of 1-12',
        input: '2024-13-01',
        ctx: { error: 'month value is outside expected range of 1-12' },
      });
      assert.equal(
        issueAt(await postThing({ ...validThing, at: 'soon' }), ['body', 'at']).msg,
        'Input should be a valid datetime or date, input is too short',
      );
    });

    it('dates and offsets reach the handler as ISO 8601 UTC with milliseconds', async () => {
      const query = await getItem('name=abc&since=2024-01-01');
      assert.equal(query.json().query.since, '2024-01-01T00:00:00.000Z');
      const body = await postThing({ ...validThing, at: '2024-06-01 12:00:00+02:00' });
      assert.equal(body.json().body.at, '2024-06-01T10:00:00.000Z');
    });
  });

  describe('containers', () => {
    it('list_type, dict_type and model_attributes_type', async () => {
      assertExactIssue(await postThing({ ...validThing, permissions: 'read' }), {
        type: 'list_type',
        loc: ['body', 'permissions'],
        msg: 'Input should be a valid list',
        input: 'read',
      });
      assertExactIssue(await postThing({ ...validThing, meta: [1] }), {
        type: 'dict_type',
        loc: ['body', 'meta'],
        msg: 'Input should be a valid dictionary',
        input: [1],
      });
      assert.deepEqual(issuesOf(await postThing([1, 2])), [
        {
          type: 'model_attributes_type',
          loc: ['body'],
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input: [1, 2],
        },
      ]);
    });
  });

  describe('malformed JSON', () => {
    it("json_invalid at the character offset, with Python's reason", async () => {
      const response = await postRaw('{"title": }');
      assert.deepEqual(issuesOf(response), [
        {
          type: 'json_invalid',
          loc: ['body', 10],
          msg: 'JSON decode error',
          input: {},
          ctx: { error: 'Expecting value' },
        },
      ]);
    });

    it('json_invalid for a trailing comma and a missing delimiter', async () => {
      for (const [payload, offset, error] of [
        ['{"a":1,}', 7, 'Expecting property name enclosed in double quotes'],
        ['{"a":1 "b":2}', 7, "Expecting ',' delimiter"],
      ] as const) {
        const response = await postRaw(payload);
        assert.deepEqual(issuesOf(response)[0], {
          type: 'json_invalid',
          loc: ['body', offset],
          msg: 'JSON decode error',
          input: {},
          ctx: { error },
        });
      }
    });
  });

  describe('values no database column or JSON answer can hold', () => {
    const nul = 'text must not contain the NUL character (\\u0000)';

    it('text with a NUL character, in a query, a body value or a body key', async () => {
      assertExactIssue(await getItem('name=a%00b'), {
        type: 'value_error',
        loc: ['query', 'name'],
        msg: `Value error, ${nul}`,
        input: 'a\u0000b',
        ctx: { error: nul },
      });
      const issues = issuesOf(
        await postThing({ ...validThing, title: 'Bu\u0000y', meta: { 'k\u0000': 1, deep: ['ok', 'x\u0000'] } }),
      );
      assert.deepEqual(
        issues.map((issue) => issue.loc),
        [
          ['body', 'title'],
          ['body', 'meta', 'k\u0000'],
          ['body', 'meta', 'deep', 1],
        ],
      );
    });

    it('finite_number for a number too large to be finite', async () => {
      const response = await postRaw('{"title":"Buy","count":1,"permissions":[],"ratio":1e400}');
      assert.deepEqual(issuesOf(response), [
        { type: 'finite_number', loc: ['body', 'ratio'], msg: 'Input should be a finite number', input: null },
      ]);
    });
  });

  describe('secrets in the input', () => {
    it('are masked where Pydantic would quote them: at their own loc and inside a quoted body', async () => {
      const tooShort = issueAt(await postThing({ ...validThing, api_secret: 'hunter2' }), ['body', 'api_secret']);
      assert.equal(tooShort.input, '**********');
      assert.equal(tooShort.type, 'string_too_short');
      const missing = issueAt(await postThing({ count: 1, permissions: [], api_secret: 'correct-horse-battery' }), [
        'body',
        'title',
      ]);
      assert.deepEqual(missing.input, { count: 1, permissions: [], api_secret: '**********' });
    });
  });

  describe('reporting', () => {
    it('reports every invalid field, in the order path, query, header, body', async () => {
      const response = await inject({
        method: 'POST',
        url: '/things/not-a-uuid?dry_run=perhaps',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ title: 'x', count: 0, permissions: ['read', 'fly'] }),
      });
      assert.deepEqual(
        issuesOf(response).map((issue) => issue.loc),
        [
          ['path', 'thing_id'],
          ['query', 'dry_run'],
          ['body', 'title'],
          ['body', 'count'],
          ['body', 'permissions', 1],
        ],
      );
    });

    it('quotes query and header values as the raw strings', async () => {
      const response = await getItem('name=abc&limit=0', { 'x-trace': 'ab' });
      const issues = issuesOf(response);
      assert.deepEqual(
        issues.map((issue) => issue.input),
        ['0', 'ab'],
      );
      assert.deepEqual(
        issues.map((issue) => issue.loc),
        [
          ['query', 'limit'],
          ['header', 'x-trace'],
        ],
      );
    });

    it('omits ctx where Pydantic has none, and never adds a url', async () => {
      const [issue] = issuesOf(await getItem('name=abc&limit=abc'));
      assert.deepEqual(Object.keys(issue!).sort(), ['input', 'loc', 'msg', 'type']);
    });

    it('authentication runs first: no 422 without credentials', async () => {
      const response = await inject({ method: 'GET', url: '/guarded?limit=0' });
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), { detail: 'Not authenticated' });
    });

    it('valid input passes with defaults filled in and coerced values', async () => {
      const response = await getItem('name=abc&price=9.5');
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().query, { name: 'abc', limit: 10, price: 9.5 });
      const thing = await postThing(validThing);
      assert.equal(thing.statusCode, 200);
      assert.deepEqual(thing.json().query, { dry_run: false });
    });
  });
});
