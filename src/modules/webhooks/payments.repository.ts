// The payments provider's own records: the customer mapping and the payments ledger. A write joins
// the delivery's transaction through its executor, last and optional like every repository's.
import { and, eq, ne, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { paymentCustomers, paymentsLedger, paymentsRevenue } from './webhooks.tables.ts';

export function createPaymentsRepository(db: DbExecutor) {
  return {
    /**
     * Remembers which user a payment customer is; a later mapping for the same customer wins. A
     * proof marks the link proven; a link moved by a typed e-mail is one by e-mail, and forgets the
     * raise it made for the user before; otherwise how it was linked stays as it was (decision 1021).
     */
    async rememberCustomer(
      customer: { customerId: string; userId: string | null; email: string | null; proven: boolean },
      now: Date,
      executor: DbExecutor = db,
    ): Promise<void> {
      const moved = sql`excluded.user_id IS NOT NULL AND excluded.user_id IS DISTINCT FROM ${paymentCustomers.userId}`;
      await executor
        .insert(paymentCustomers)
        .values({ ...customer, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({
          target: paymentCustomers.customerId,
          set: {
            userId: sql`coalesce(excluded.user_id, ${paymentCustomers.userId})`,
            email: sql`coalesce(excluded.email, ${paymentCustomers.email})`,
            proven: sql`CASE WHEN excluded.proven THEN true WHEN ${moved} THEN false ELSE ${paymentCustomers.proven} END`,
            raisedFrom: sql`CASE WHEN ${moved} THEN NULL ELSE ${paymentCustomers.raisedFrom} END`,
            updatedAt: now,
          },
        });
    },

    /** The tier the customer's newest applied subscription change grants (decision 975). */
    async rememberTier(customerId: string, tier: string, now: Date, executor: DbExecutor = db): Promise<void> {
      await executor
        .update(paymentCustomers)
        .set({ tier, updatedAt: now })
        .where(eq(paymentCustomers.customerId, customerId));
    },

    /**
     * A customer linked by a typed e-mail raised its user from `from` (decision 1021); a link made
     * before that decision is from now on one by e-mail.
     */
    async rememberRaise(customerId: string, from: string, now: Date, executor: DbExecutor = db): Promise<void> {
      await executor
        .update(paymentCustomers)
        .set({ raisedFrom: from, proven: sql`coalesce(${paymentCustomers.proven}, false)`, updatedAt: now })
        .where(eq(paymentCustomers.customerId, customerId));
    },

    /**
     * The user's other customers and the tier each one's subscription grants, null where none is
     * remembered (no subscription change applied since decision 975).
     */
    async otherCustomers(
      userId: string,
      customerId: string,
      executor: DbExecutor = db,
    ): Promise<{ customerId: string; tier: string | null }[]> {
      return executor
        .select({ customerId: paymentCustomers.customerId, tier: paymentCustomers.tier })
        .from(paymentCustomers)
        .where(and(eq(paymentCustomers.userId, userId), ne(paymentCustomers.customerId, customerId)))
        .orderBy(paymentCustomers.customerId);
    },

    async findCustomer(customerId: string, executor: DbExecutor = db) {
      const [row] = await executor
        .select()
        .from(paymentCustomers)
        .where(eq(paymentCustomers.customerId, customerId))
        .limit(1);
      return row;
    },

    /** Records a payment once per external id; answers whether this call recorded it. */
    async recordPayment(
      payment: {
        externalId: string;
        userId: string | null;
        customerEmail: string | null;
        amount: string;
        currency: string;
        occurredAt: Date;
      },
      now: Date,
      executor: DbExecutor = db,
    ): Promise<boolean> {
      const rows = await executor
        .insert(paymentsLedger)
        .values({ ...payment, kind: 'payment', createdAt: now })
        .onConflictDoNothing()
        .returning({ id: paymentsLedger.id });
      return rows.length > 0;
    },

    /** Exact sums in SQL (numeric) per upper-cased currency, as decimal strings; empty for an empty ledger. */
    async revenueByCurrency(executor: DbExecutor = db): Promise<Map<string, string>> {
      // Kept per currency by the database as the ledger is written (docs/decisions/124).
      const rows = await executor
        .select({ currency: paymentsRevenue.currency, sum: sql<string>`${paymentsRevenue.amount}::text` })
        .from(paymentsRevenue)
        .orderBy(paymentsRevenue.currency);
      return new Map(rows.map((row) => [row.currency, row.sum]));
    },
  };
}

export type PaymentsRepository = ReturnType<typeof createPaymentsRepository>;
