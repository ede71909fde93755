// What an admin search must answer, as plain SQL says it: the accounts `where` selects, newest first,
// the page at `offset`, and their count capped at the total's bound. The tests hold every way of
// answering (the walk, the matches, the name's words) to it.
import { type SQL, sql } from 'drizzle-orm';
import { type DbExecutor, rowsOf } from '../../../src/platform/db/database.ts';
import { SEARCH_TOTAL_BOUND } from '../../../src/modules/users/accounts-search.ts';

export async function expectedPage(db: DbExecutor, where: SQL, offset: number, limit: number) {
  const ids = rowsOf<{ id: string }>(
    await db.execute(
      sql`SELECT id FROM users WHERE ${where} ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`,
    ),
  ).map((r) => r.id);
  const [count] = rowsOf<{ n: number }>(await db.execute(sql`SELECT count(*)::int AS n FROM users WHERE ${where}`));
  return { ids, total: Math.min(Number(count!.n), SEARCH_TOTAL_BOUND), matches: Number(count!.n) };
}

/** A page as the oracle states it: its ids in order and its total. */
export const shown = (page: { rows: { id: string }[]; total: number }) => ({
  ids: page.rows.map((r) => r.id),
  total: page.total,
});
