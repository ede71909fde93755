// Set-up shared by the outbox tests: the notifications module's writer, a fixed start time, and a
// fresh, empty database with workers on a fixed clock for each test.
import { eq } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import type { Database } from '../../../src/platform/db/database.ts';
import { outbox } from '../../../src/platform/db/schema.ts';
import { createLogger } from '../../../src/platform/observability/logger.ts';
import { outboxWriter } from '../../../src/platform/outbox/outbox.ts';
import { createOutboxWorker, type OutboxWorkerOptions } from '../../../src/platform/outbox/outbox-worker.ts';
import { resetDatabase, testDatabase } from '../../helpers/test-app.ts';

// The platform names no kind; these are the notifications module's, which the database's CHECK accepts.
export const { enqueue } = outboxWriter(['chat.post', 'mail.send']);

export const T0 = new Date('2025-03-01T12:00:00.000Z');
export const logger = createLogger('silent');
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export type OutboxBed = Awaited<ReturnType<typeof freshOutbox>>;

/** The file's database emptied, a clock at T0, and workers and reads on them. */
export async function freshOutbox() {
  const database: Database = await testDatabase();
  await resetDatabase(database);
  const clock = fixedClock(T0);
  const worker = (options: Partial<OutboxWorkerOptions> = {}) =>
    createOutboxWorker({ database, clock, logger, ...options });
  const rows = () => database.db.select().from(outbox).orderBy(outbox.createdAt);
  const rowById = async (id: string) => (await database.db.select().from(outbox).where(eq(outbox.id, id)))[0]!;
  return { database, clock, worker, rows, rowById };
}
