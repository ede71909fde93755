// PGlite's statements named and parsed once (decision 1340): each answers as PGlite's own `query` does
// (rows, types, counts, errors), within its locks and transactions, a table changed under a statement is
// read as it is now, and the statements kept are bounded. Against a PGlite of its own, whichever database
// the suite runs on: the wrapper is PGlite's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as pglite from '@electric-sql/pglite';
import { MAX_STATEMENTS, type PgliteQueries, withNamedStatements } from '../../../src/platform/db/pglite-statements.ts';

describe('PGlite statements parsed once', () => {
  let raw: pglite.PGlite;
  let named: PgliteQueries;
  before(async () => {
    raw = await pglite.PGlite.create();
    named = withNamedStatements(raw, pglite);
    await raw.exec(`CREATE TABLE items (id uuid PRIMARY KEY, name text UNIQUE, at timestamptz, amount numeric,
      flags jsonb, tags text[], ok boolean)`);
  });
  after(() => raw.close());

  const kept = async (like: string) =>
    (
      await raw.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE $1`, [
        like,
      ])
    ).rows[0]!.n;

  it('answers as PGlite’s own query: rows, types, counts, in either row mode', async () => {
    const insert = 'INSERT INTO items VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *';
    const rows: unknown[][] = [
      [
        '7f4a3b52-3c1e-4d7a-9f0e-6b1d2c3a4e5f',
        'one',
        new Date('2026-01-02T03:04:05.678Z'),
        '1.50',
        { a: [1, 'x'] },
        ['p', 'q'],
        true,
      ],
      ['0d0c7a2e-51f3-4e44-8a8b-3f5c2d1e0a9b', 'two', null, '0.000000001', null, [], false],
    ];
    for (const values of rows) {
      const ours = await named.query(insert, values);
      await raw.query('DELETE FROM items WHERE id = $1', [values[0]]);
      const theirs = await raw.query(insert, values);
      assert.deepEqual(ours, theirs);
    }
    const select = 'SELECT name, at, amount, flags, tags, ok FROM items WHERE ok = $1 OR $1 IS NULL ORDER BY name';
    for (const value of [true, null, false]) {
      for (const options of [undefined, { rowMode: 'array' as const }, { parsers: { 1184: (x: string) => `at ${x}` } }])
        assert.deepEqual(await named.query(select, [value], options), await raw.query(select, [value], options));
    }
    const update = 'UPDATE items SET ok = NOT ok WHERE amount > $1';
    assert.equal((await named.query(update, ['0'])).affectedRows, 2);
    assert.equal((await raw.query(update, ['0'])).affectedRows, 2);
  });

  it('parses a statement text once, whatever its values', async () => {
    const text = 'SELECT $1::int + 1 AS next /* once */';
    for (const value of [1, 2, 3, 4, 5, 6, 7])
      assert.deepEqual((await named.query(text, [value])).rows, [{ next: value + 1 }]);
    assert.equal(await kept('%/* once */%'), 1);
  });

  it('throws what PGlite throws, with the statement, and goes on', async () => {
    const insert = 'INSERT INTO items (id, name) VALUES ($1, $2)';
    await named.query(insert, ['11111111-1111-4111-8111-111111111111', 'dup']);
    const error = await named.query(insert, ['22222222-2222-4222-8222-222222222222', 'dup']).catch((e: unknown) => e);
    assert.ok(error instanceof pglite.messages.DatabaseError, String(error));
    assert.equal(error.code, '23505');
    assert.equal((error as unknown as { query: string }).query, insert);
    const bad = await named.query('SELEC 1').catch((e: unknown) => e);
    assert.equal((bad as { code?: string }).code, '42601');
    const badValue = await named.query('SELECT $1::uuid AS id', ['not a uuid']).catch((e: unknown) => e);
    assert.equal((badValue as { code?: string }).code, '22P02');
    assert.deepEqual((await named.query('SELECT $1::uuid AS id', [null])).rows, [{ id: null }]);
  });

  it('reads a table changed under a statement as it is now', async () => {
    await raw.exec('CREATE TABLE shifting (a int); INSERT INTO shifting VALUES (1)');
    const text = 'SELECT * FROM shifting WHERE a = $1';
    assert.deepEqual((await named.query(text, [1])).rows, [{ a: 1 }]);
    await raw.exec("ALTER TABLE shifting ADD COLUMN b text DEFAULT 'new'");
    assert.deepEqual((await named.query(text, [1])).rows, [{ a: 1, b: 'new' }]);
    await raw.exec('DROP TABLE shifting; CREATE TABLE shifting (a int, c int); INSERT INTO shifting VALUES (1, 2)');
    assert.deepEqual((await named.query(text, [1])).rows, [{ a: 1, c: 2 }]);
  });

  it('runs within transactions: kept on commit, undone on rollback or error, one at a time with other queries', async () => {
    await raw.exec('CREATE TABLE counted (n int)');
    const add = 'INSERT INTO counted VALUES ($1)';
    const total = async () =>
      (await named.query<{ t: number }>('SELECT coalesce(sum(n), 0)::int AS t FROM counted')).rows[0]!.t;
    await named.transaction(async (tx) => {
      await tx.query(add, [1]);
      await tx.query(add, [2]);
    });
    await named.transaction(async (tx) => {
      await tx.query(add, [100]);
      await tx.rollback();
    });
    await assert.rejects(
      named.transaction(async (tx) => {
        await tx.query(add, [1000]);
        await tx.query('SELECT 1 / $1::int', [0]);
      }),
      /division by zero/,
    );
    assert.equal(await total(), 3);
    // Queries outside wait for the transaction: none sees its rows before it commits.
    const seen: number[] = [];
    await Promise.all([
      named.transaction(async (tx) => {
        for (let i = 0; i < 5; i++) await tx.query(add, [10]);
      }),
      ...Array.from({ length: 5 }, async () => seen.push(await total())),
    ]);
    assert.ok(
      seen.every((t) => t === 3 || t === 53),
      seen.join(),
    );
    assert.equal(await total(), 53);
  });

  it(`keeps at most ${MAX_STATEMENTS} statements, closing the least recently run`, async () => {
    for (let i = 0; i <= MAX_STATEMENTS + 20; i++) await named.query(`SELECT $1::int AS v /* bound ${i} */`, [i]);
    // The next statement parsed closes those past the bound.
    await named.query('SELECT 1 AS v /* bound last */');
    const all = await kept('%');
    assert.ok(all <= MAX_STATEMENTS + 1, `${all} statements kept`);
    assert.deepEqual(
      (await named.query('SELECT $1::int AS v /* bound 0 */', [5])).rows,
      [{ v: 5 }],
      'a closed one is parsed again',
    );
  });
});
