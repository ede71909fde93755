// The notifications module's queries: the suppression list it owns, and the outbox rows of its kinds.
import { eq, sql } from 'drizzle-orm';
import type { Database, DbExecutor } from '../../platform/db/database.ts';
import { outbox } from '../../platform/db/schema.ts';
import { emailSuppressions } from './notifications.tables.ts';
import { iso } from '../../platform/http/schemas.ts';

/** Prefix of the note of a row that reached its receiver (as opposed to recorded only or skipped). */
export const DELIVERED = 'delivered';

export interface KindStatus {
  pending: number;
  dead: number;
  lastSuccessAt: string | null;
  lastError: string | null;
  /** When the attempt that produced `lastError` ended. */
  lastErrorAt: string | null;
}

export const notificationsRepository = {
  async isSuppressed(executor: DbExecutor, email: string): Promise<boolean> {
    const rows = await executor.select({ email: emailSuppressions.email }).from(emailSuppressions).where(eq(emailSuppressions.email, email.trim().toLowerCase())).limit(1);
    return rows.length > 0;
  },

  /** Puts an address on the suppression list; answers whether it was new there. */
  async suppress(executor: DbExecutor, email: string, reason: string, now: Date): Promise<boolean> {
    const rows = await executor
      .insert(emailSuppressions)
      .values({ email: email.trim().toLowerCase(), reason, createdAt: now })
      .onConflictDoNothing()
      .returning({ email: emailSuppressions.email });
    return rows.length > 0;
  },

  /** Replaces a sent mail's sealed content, so that the secret it carried does not stay at rest. */
  async wipeSealed(executor: DbExecutor, id: string, kept: { to: string; subject: string }): Promise<void> {
    await executor.update(outbox).set({ payload: { ...kept, redacted: true } }).where(eq(outbox.id, id));
  },

  async statusByKind(database: Pick<Database, 'rows'>, kinds: readonly string[]): Promise<Record<string, KindStatus>> {
    const kindList = sql.join(kinds.map((k) => sql`${k}`), sql`, `);
    const [counts, errors] = await Promise.all([
      database.rows<{ kind: string; pending: number; dead: number; last_success_at: Date | string | null }>(sql`
        SELECT kind,
          count(*) FILTER (WHERE status IN ('pending', 'processing'))::int AS pending,
          count(*) FILTER (WHERE status = 'dead')::int AS dead,
          max(processed_at) FILTER (WHERE status = 'done' AND result LIKE ${`${DELIVERED}%`}) AS last_success_at
        FROM outbox WHERE kind IN (${kindList}) GROUP BY kind`),
      // A row that later succeeds has its error cleared, so these are the failures still standing.
      database.rows<{ kind: string; last_error: string; last_error_at: Date | string | null }>(sql`
        SELECT DISTINCT ON (kind) kind, last_error, processed_at AS last_error_at FROM outbox
        WHERE kind IN (${kindList}) AND last_error IS NOT NULL
        ORDER BY kind, processed_at DESC NULLS LAST, available_at DESC`),
    ]);
    return Object.fromEntries(
      kinds.map((kind) => {
        const count = counts.find((c) => c.kind === kind);
        return [
          kind,
          {
            pending: Number(count?.pending ?? 0),
            dead: Number(count?.dead ?? 0),
            lastSuccessAt: iso(count?.last_success_at ?? null),
            lastError: errors.find((e) => e.kind === kind)?.last_error ?? null,
            lastErrorAt: iso(errors.find((e) => e.kind === kind)?.last_error_at ?? null),
          },
        ];
      }),
    );
  },
};
