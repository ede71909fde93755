// The queries webhook effects make on users, the payments ledger, the customer mapping and the mail
// suppression list. Every function takes the executor of the delivery's transaction.
import { eq, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { emailSuppressions, paymentsLedger, users } from '../../platform/db/schema.ts';
import { paymentCustomers } from './webhooks.tables.ts';

export interface MatchedUser {
  id: string;
  email: string;
  role: string;
  subscriptionTier: string;
  status: string;
  gracePeriodEndsAt: Date | null;
}

const userColumns = {
  id: users.id,
  email: users.email,
  role: users.role,
  subscriptionTier: users.subscriptionTier,
  status: users.status,
  gracePeriodEndsAt: users.gracePeriodEndsAt,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findUserByEmail(tx: DbExecutor, email: string): Promise<MatchedUser | undefined> {
  const [row] = await tx.select(userColumns).from(users).where(eq(users.email, email.trim().toLowerCase())).limit(1);
  return row;
}

export async function findUserById(tx: DbExecutor, id: string): Promise<MatchedUser | undefined> {
  if (!UUID.test(id)) return undefined;
  const [row] = await tx.select(userColumns).from(users).where(eq(users.id, id)).limit(1);
  return row;
}

export async function updateUserBilling(
  tx: DbExecutor,
  userId: string,
  changes: { subscriptionTier?: string; gracePeriodEndsAt?: Date | null },
  now: Date,
): Promise<void> {
  await tx.update(users).set({ ...changes, updatedAt: now }).where(eq(users.id, userId));
}

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

export async function findCustomer(tx: DbExecutor, customerId: string) {
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

/** Puts an address on the suppression list; answers whether it was new there. */
export async function suppressEmail(tx: DbExecutor, email: string, reason: string, now: Date): Promise<boolean> {
  const rows = await tx
    .insert(emailSuppressions)
    .values({ email: email.trim().toLowerCase(), reason, createdAt: now })
    .onConflictDoNothing()
    .returning({ email: emailSuppressions.email });
  return rows.length > 0;
}
