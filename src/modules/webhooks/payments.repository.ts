// The payments provider's own records: the customer mapping and the payments ledger. Every write
// takes the executor of the delivery's transaction.
import { eq, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { paymentCustomers, paymentsLedger, paymentsRevenue } from './webhooks.tables.ts';

/** Remembers which user a payment customer is; a later mapping for the same customer wins. */
export async function rememberCustomer(
  tx: DbExecutor,
  customer: { customerId: string; userId: string | null; email: string | null },
  now: Date,
): Promise<void> {
  await tx
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
}

export async function findCustomer(customerId: string, tx: DbExecutor) {
  const [row] = await tx.select().from(paymentCustomers).where(eq(paymentCustomers.customerId, customerId)).limit(1);
  return row;
}

/** Records a payment once per external id; answers whether this call recorded it. */
export async function recordPayment(
  tx: DbExecutor,
  payment: {
    externalId: string;
    userId: string | null;
    customerEmail: string | null;
    amount: string;
    currency: string;
    occurredAt: Date;
  },
  now: Date,
): Promise<boolean> {
  const rows = await tx
    .insert(paymentsLedger)
    .values({ ...payment, kind: 'payment', createdAt: now })
    .onConflictDoNothing()
    .returning({ id: paymentsLedger.id });
  return rows.length > 0;
}

/** Exact sums in SQL (numeric) per upper-cased currency, as decimal strings; empty for an empty ledger. */
export async function revenueByCurrency(db: DbExecutor): Promise<Map<string, string>> {
  // Kept per currency by the database as the ledger is written (docs/decisions/124).
  const rows = await db
    .select({ currency: paymentsRevenue.currency, sum: sql<string>`${paymentsRevenue.amount}::text` })
    .from(paymentsRevenue)
    .orderBy(paymentsRevenue.currency);
  return new Map(rows.map((row) => [row.currency, row.sum]));
}
