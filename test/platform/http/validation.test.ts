// The 422 shape, field by field, through a real Fastify app wired with the production validation
// and error handling. Expected items are what FastAPI/Pydantic v2 answer for the same declarations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertExactIssue, ID, issueAt, issuesOf, validationApp, validThing } from './validation-fixture.ts';

describe('422 validation errors in the Pydantic v2 shape: missing fields, numbers, booleans, strings', () => {
  const { getItem, inject, postThing } = validationApp();

  describe('missing', () => {
    it('a query parameter: input null', async () => {
      assertExactIssue(await getItem(''), {
        type: 'missing',
        loc: ['query', 'name'],
        msg: 'Field required',
        input: null,
      });
    });

    it('a header: input null, the header name lower-cased', async () => {
      assertExactIssue(await getItem('name=abc', {}), {
        type: 'missing',
        loc: ['header', 'x-trace'],
        msg: 'Field required',
        input: null,
      });
    });

    it('body fields: the input is the whole body object', async () => {
      const body = { title: 'Buy' };
      assert.deepEqual(issuesOf(await postThing(body)), [
        { type: 'missing', loc: ['body', 'count'], msg: 'Field required', input: body },
        { type: 'missing', loc: ['body', 'permissions'], msg: 'Field required', input: body },
      ]);
    });

    it('the whole body: loc ["body"], input null', async () => {
      const response = await inject({ method: 'POST', url: `/things/${ID}` });
      assert.deepEqual(issuesOf(response), [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
    });

    it('a body that requires nothing may be left out, and gets its defaults', async () => {
      const response = await inject({ method: 'POST', url: '/optional' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { note: 'none' });
    });

    it('an invalid path parameter is reported under path', async () => {
      assert.equal(issueAt(await getItem('name=abc', undefined, 'nope'), ['path', 'item_id']).type, 'uuid_parsing');
    });
  });

  describe('numbers', () => {
    for (const raw of ['abc', '1.5', '']) {
      it(`int_parsing for the query string "${raw}", quoting the raw string`, async () => {
        assertExactIssue(await getItem(`name=abc&limit=${raw}`), {
          type: 'int_parsing',
          loc: ['query', 'limit'],
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input: raw,
        });
      });
    }

    it('a repeated single-valued query parameter counts with its last value, as Starlette reads it', async () => {
      assert.equal((await getItem('name=abc&limit=3&limit=4')).json().query.limit, 4);
      assert.deepEqual(issueAt(await getItem('name=abc&limit=3&limit=0'), ['query', 'limit']).input, '0');
    });

    it('accepts "5.0" and " 7 " for an integer query parameter, as Pydantic does', async () => {
      assert.equal((await getItem('name=abc&limit=5.0')).json().query.limit, 5);
      assert.equal((await getItem('name=abc&limit=%207%20')).json().query.limit, 7);
    });

    it('int_from_float for 1.5 in a JSON body', async () => {
      assertExactIssue(await postThing({ ...validThing, count: 1.5 }), {
        type: 'int_from_float',
        loc: ['body', 'count'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
        input: 1.5,
      });
    });

    it('a JSON body is not coerced: "5" is int_type, "abc" is int_parsing', async () => {
      assert.equal(issueAt(await postThing({ ...validThing, count: '5' }), ['body', 'count']).type, 'int_type');
      assert.equal(issueAt(await postThing({ ...validThing, count: 'abc' }), ['body', 'count']).type, 'int_parsing');
      assert.equal(issueAt(await postThing({ ...validThing, ratio: 'x' }), ['body', 'ratio']).type, 'float_parsing');
      assert.equal(issueAt(await postThing({ ...validThing, ratio: '1.5' }), ['body', 'ratio']).type, 'float_type');
    });

    it('greater_than_equal and less_than_equal carry the bound in ctx, as a number', async () => {
      assertExactIssue(await getItem('name=abc&limit=0'), {
        type: 'greater_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
        input: '0',
        ctx: { ge: 1 },
      });
      assertExactIssue(await getItem('name=abc&limit=101'), {
        type: 'less_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be less than or equal to 100',
        input: '101',
        ctx: { le: 100 },
      });
    });

    it('greater_than and less_than for exclusive bounds', async () => {
      assertExactIssue(await getItem('name=abc&price=0'), {
        type: 'greater_than',
        loc: ['query', 'price'],
        msg: 'Input should be greater than 0',
        input: '0',
        ctx: { gt: 0 },
      });
      assertExactIssue(await getItem('name=abc&price=1000'), {
        type: 'less_than',
        loc: ['query', 'price'],
        msg: 'Input should be less than 1000',
        input: '1000',
        ctx: { lt: 1000 },
      });
    });

    it('float_parsing for a query string that is not a number', async () => {
      assertExactIssue(await getItem('name=abc&price=cheap'), {
        type: 'float_parsing',
        loc: ['query', 'price'],
        msg: 'Input should be a valid number, unable to parse string as a number',
        input: 'cheap',
      });
    });
  });

  describe('booleans', () => {
    it('reads the words Pydantic reads, in any case', async () => {
      for (const [raw, value] of [
        ['yes', true],
        ['On', true],
        ['1', true],
        ['t', true],
        ['no', false],
        ['OFF', false],
        ['0', false],
        ['f', false],
      ] as const) {
        const response = await getItem(`name=abc&active=${raw}`);
        assert.equal(response.statusCode, 200, raw);
        assert.equal(response.json().query.active, value, raw);
      }
    });

    it('bool_parsing for anything else, quoting the raw string', async () => {
      assertExactIssue(await getItem('name=abc&active=maybe'), {
        type: 'bool_parsing',
        loc: ['query', 'active'],
        msg: 'Input should be a valid boolean, unable to interpret input',
        input: 'maybe',
      });
      assert.equal(issueAt(await getItem('name=abc&active=2'), ['query', 'active']).type, 'bool_parsing');
    });

    it('in a JSON body: 2 is bool_parsing, "true" is bool_type (not coerced)', async () => {
      assert.equal(issueAt(await postThing({ ...validThing, flag: 2 }), ['body', 'flag']).type, 'bool_parsing');
      assert.equal(issueAt(await postThing({ ...validThing, flag: 'true' }), ['body', 'flag']).type, 'bool_type');
    });
  });

  describe('strings', () => {
    it('string_too_short and string_too_long with the bound, plural', async () => {
      assertExactIssue(await getItem('name=ab'), {
        type: 'string_too_short',
        loc: ['query', 'name'],
        msg: 'String should have at least 3 characters',
        input: 'ab',
        ctx: { min_length: 3 },
      });
      assertExactIssue(await getItem('name=abcdef'), {
        type: 'string_too_long',
        loc: ['query', 'name'],
        msg: 'String should have at most 5 characters',
        input: 'abcdef',
        ctx: { max_length: 5 },
      });
    });

    it('singular "character" when the bound is 1', async () => {
      assert.equal(
        issueAt(await getItem('name=abc&code='), ['query', 'code']).msg,
        'String should have at least 1 character',
      );
      assert.equal(
        issueAt(await getItem('name=abc&code=ab'), ['query', 'code']).msg,
        'String should have at most 1 character',
      );
    });

    it('string_type for a number where a string is expected', async () => {
      assertExactIssue(await postThing({ ...validThing, title: 5 }), {
        type: 'string_type',
        loc: ['body', 'title'],
        msg: 'Input should be a valid string',
        input: 5,
      });
    });
  });
});
