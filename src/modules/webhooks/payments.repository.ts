// The payments provider's own records: the customer mapping and the payments ledger. A write joins
// the delivery's transaction through its executor, last and optional like every repository's.
import { and, eq, isNotNull, ne, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { paymentCustomers, paymentsLedger, paymentsRevenue } from './webhooks.tables.ts';

export function createPaymentsRepository(db: DbExecutor) {
  return {
    /** Remembers which user a payment customer is; a later mapping for the same customer wins. */
    async rememberCustomer(
      customer: { customerId: string; userId: string | null; email: string | null },
      now: Date,
      executor: DbExecutor = db,
    ): Promise<void> {
      await executor
        .insert(paymentCustomers)
        .values({ ...customer, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({
          target: paymentCustomers.customerId,
          set: {
            userId: sql`coalesce(excluded.user_id, ${paymentCustomers.userId})`,
            email: sql`coalesce(excluded.email, ${paymentCustomers.email})`,
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

    /** The tiers the user's other customers' subscriptions grant. */
    async otherTiers(userId: string, customerId: string, executor: DbExecutor = db): Promise<string[]> {
      const rows = await executor
        .select({ tier: paymentCustomers.tier })
        .from(paymentCustomers)
        .where(
          and(
            eq(paymentCustomers.userId, userId),
            ne(paymentCustomers.customerId, customerId),
            isNotNull(paymentCustomers.tier),
          ),
        );
      return rows.flatMap((row) => (row.tier ? [row.tier] : []));
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
