// The benchmarks' PostgreSQL (BENCH_DATABASE_URL), where each creates and drops a database of its own.
import pg from 'pg';

export const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** One statement on a connection of its own (CREATE/DROP DATABASE cannot run in a transaction). */
export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
