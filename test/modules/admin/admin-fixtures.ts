// Test data for the admin tests: users written straight to the table (no password hashing, exact
// creation times), and the Pydantic 422 item the contract expects.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { Database } from '../../../src/platform/db/database.ts';
// Accounts inserted with exact creation times for the listing's order; registering cannot back-date them.
import { users } from '../../../src/modules/users/users.tables.ts';

type NewUser = typeof users.$inferInsert;

export async function insertUsers(database: Database, rows: Partial<NewUser>[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await database.db
    .insert(users)
    .values(
      rows.map((row, i) => ({
        email: `fixture-${i}-${Math.random().toString(36).slice(2)}@example.com`,
        passwordHash: 'unusable',
        ...row,
      })),
    )
    .returning({ id: users.id });
  return inserted.map((r) => r.id);
}

/** Asserts a 422 whose detail lists exactly these (loc, type) pairs, in order. */
export function assertValidation(
  response: LightMyRequestResponse,
  expected: { loc: (string | number)[]; type: string }[],
) {
  assert.equal(response.statusCode, 422, response.body);
  const detail = response.json().detail as { loc: (string | number)[]; type: string; msg: string }[];
  assert.deepEqual(
    detail.map((d) => ({ loc: d.loc, type: d.type })),
    expected,
  );
  for (const item of detail) assert.equal(typeof item.msg, 'string');
  return detail;
}
