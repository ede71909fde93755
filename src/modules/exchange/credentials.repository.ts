// Queries on exchange_credentials. Every read and write of a user's credential is scoped by owner.
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { dateOrNull, type DbExecutor } from '../../platform/db/database.ts';
import type { ValidationStatus } from './credentials.domain.ts';
import { exchangeCredentials } from './exchange.tables.ts';
import { descending } from '../../platform/db/order.ts';

export type CredentialRow = typeof exchangeCredentials.$inferSelect;
export type NewCredential = typeof exchangeCredentials.$inferInsert;
export type CredentialPatch = Partial<
  Pick<
    NewCredential,
    | 'credentialName'
    | 'apiKeySealed'
    | 'apiSecretSealed'
    | 'apiPassphraseSealed'
    | 'apiKeyMasked'
    | 'permissions'
    | 'ipWhitelist'
    | 'exchangeMetadata'
    | 'isActive'
    | 'validationStatus'
    | 'validationError'
    | 'lastValidation'
    | 'lastUsed'
    | 'updatedAt'
  >
>;

/** What a venue call showed about a key. */
export type CredentialOutcome = { status: 'valid' } | { status: 'invalid' | 'error'; error: string };

/** PostgreSQL's unique_violation, whichever driver (and drizzle's wrapper) raised it. */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23505') return true;
  }
  return false;
}

interface VenueCredentialStats {
  venue: string;
  count: number;
  lastSuccessAt: Date | null;
  lastErrorAt: Date | null;
  /** `invalid` (refused by the venue) or `error` (could not be checked), of the latest failure. */
  lastErrorStatus: string | null;
}

export function createCredentialsRepository(db: DbExecutor) {
  const owned = (userId: string, id: string) =>
    and(eq(exchangeCredentials.userId, userId), eq(exchangeCredentials.id, id));
  // The list is read on every visit of a user's exchange pages: built once, not per request.
  const newestFirst = [descending(exchangeCredentials.createdAt), asc(exchangeCredentials.id)];
  const listAll = db
    .select()
    .from(exchangeCredentials)
    .where(eq(exchangeCredentials.userId, sql.placeholder('userId')))
    .orderBy(...newestFirst)
    .prepare('exchange_credentials_of_user');
  const ofUserVenue = and(
    eq(exchangeCredentials.userId, sql.placeholder('userId')),
    eq(exchangeCredentials.exchangeName, sql.placeholder('exchangeName')),
  );
  const listOfVenue = db
    .select()
    .from(exchangeCredentials)
    .where(ofUserVenue)
    .orderBy(...newestFirst)
    .prepare('exchange_credentials_of_user_venue');
  // Read for every live order (its credential, named or the venue's default): built once (decision 375).
  const ownedOne = db
    .select()
    .from(exchangeCredentials)
    .where(
      and(eq(exchangeCredentials.userId, sql.placeholder('userId')), eq(exchangeCredentials.id, sql.placeholder('id'))),
    )
    .limit(1)
    .prepare('exchange_credential_owned');
  const defaultOf = db
    .select()
    .from(exchangeCredentials)
    .where(and(ofUserVenue, eq(exchangeCredentials.isActive, true)))
    .orderBy(
      sql`CASE ${exchangeCredentials.validationStatus} WHEN 'valid' THEN 0 WHEN 'pending' THEN 1 ELSE 2 END`,
      descending(exchangeCredentials.createdAt),
    )
    .limit(1)
    .prepare('exchange_credential_default');

  return {
    /** Undefined when the user already has a credential of that name on that venue. */
    async insert(row: NewCredential, executor: DbExecutor = db): Promise<CredentialRow | undefined> {
      const [created] = await executor.insert(exchangeCredentials).values(row).onConflictDoNothing().returning();
      return created;
    },

    async listForUser(userId: string, exchangeName?: string): Promise<CredentialRow[]> {
      return exchangeName ? listOfVenue.execute({ userId, exchangeName }) : listAll.execute({ userId });
    },

    async findForUser(userId: string, id: string, executor: DbExecutor = db): Promise<CredentialRow | undefined> {
      const [row] =
        executor === db
          ? await ownedOne.execute({ userId, id })
          : await executor.select().from(exchangeCredentials).where(owned(userId, id)).limit(1);
      return row;
    },

    /**
     * The credential a venue call uses when none is named: an active one, a validated one before
     * an unvalidated one, the most recently created first.
     */
    async findDefault(userId: string, exchangeName: string): Promise<CredentialRow | undefined> {
      const [row] = await defaultOf.execute({ userId, exchangeName });
      return row;
    },

    /** Undefined when the credential is not the user's. Throws on a name clash (unique violation). */
    /**
     * The changed row; undefined when the user has no such credential, `name_taken` when another of theirs
     * on that venue has the new name.
     */
    async update(
      userId: string,
      id: string,
      patch: CredentialPatch,
      executor: DbExecutor = db,
    ): Promise<CredentialRow | 'name_taken' | undefined> {
      try {
        const [row] = await executor.update(exchangeCredentials).set(patch).where(owned(userId, id)).returning();
        return row;
      } catch (error) {
        if (isUniqueViolation(error)) return 'name_taken';
        throw error;
      }
    },

    /** Deletes every credential of the user, answering what each was (decision 790). */
    async deleteAllOf(userId: string, executor: DbExecutor) {
      return executor.delete(exchangeCredentials).where(eq(exchangeCredentials.userId, userId)).returning({
        id: exchangeCredentials.id,
        exchangeName: exchangeCredentials.exchangeName,
        credentialName: exchangeCredentials.credentialName,
      });
    },

    async delete(userId: string, id: string, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .delete(exchangeCredentials)
        .where(owned(userId, id))
        .returning({ id: exchangeCredentials.id });
      return rows.length > 0;
    },

    /** Bookkeeping after a venue call; not owner-scoped because the id came from an owned read. */
    /**
     * What a venue call showed about the key. A venue that could not judge it (`error`) keeps an
     * earlier verdict and turns only a pending one into `error`; `used` also stamps last_used.
     */
    async recordOutcome(id: string, outcome: CredentialOutcome, used: boolean, at: Date): Promise<void> {
      const c = exchangeCredentials;
      const verdict: CredentialPatch =
        outcome.status === 'error'
          ? {
              validationStatus: sql<ValidationStatus>`CASE WHEN ${c.validationStatus} = 'pending' THEN 'error'
                  ELSE ${c.validationStatus} END` as unknown as ValidationStatus,
              validationError: outcome.error,
            }
          : { validationStatus: outcome.status, validationError: outcome.status === 'valid' ? null : outcome.error };
      await db
        .update(c)
        .set({ ...verdict, lastValidation: at, ...(used ? { lastUsed: at } : {}) })
        .where(eq(c.id, id));
    },

    /** A page of sealed fields, for re-encryption under the current key. */
    /**
     * Per venue, over active credentials of every user: how many, the latest successful check, and
     * the latest failed one with its status. Counts and times only; no key material, no venue text.
     */
    async statsPerVenue(): Promise<VenueCredentialStats[]> {
      const c = exchangeCredentials;
      const rows = await db
        .select({
          venue: c.exchangeName,
          count: sql<number>`count(*)::int`,
          lastSuccessAt: sql<
            Date | string | null
          >`max(${c.lastValidation}) FILTER (WHERE ${c.validationError} IS NULL AND ${c.validationStatus} = 'valid')`,
          lastErrorAt: sql<
            Date | string | null
          >`max(${c.lastValidation}) FILTER (WHERE ${c.validationError} IS NOT NULL)`,
          lastErrorStatus: sql<string | null>`(array_agg(${c.validationStatus} ORDER BY ${c.lastValidation} DESC)
            FILTER (WHERE ${c.validationError} IS NOT NULL))[1]`,
        })
        .from(c)
        .where(eq(c.isActive, true))
        .groupBy(c.exchangeName);
      return rows.map((row) => ({
        ...row,
        count: Number(row.count),
        lastSuccessAt: dateOrNull(row.lastSuccessAt),
        lastErrorAt: dateOrNull(row.lastErrorAt),
      }));
    },

    /** Active credentials of every user, in id order, for the sync-accounts job. */
    async activeInIdOrder(max: number) {
      return db
        .select({
          id: exchangeCredentials.id,
          userId: exchangeCredentials.userId,
          exchangeName: exchangeCredentials.exchangeName,
        })
        .from(exchangeCredentials)
        .where(eq(exchangeCredentials.isActive, true))
        .orderBy(asc(exchangeCredentials.id))
        .limit(max);
    },

    async sealedPage(afterId: string | null, size: number) {
      return db
        .select({
          id: exchangeCredentials.id,
          apiKeySealed: exchangeCredentials.apiKeySealed,
          apiSecretSealed: exchangeCredentials.apiSecretSealed,
          apiPassphraseSealed: exchangeCredentials.apiPassphraseSealed,
        })
        .from(exchangeCredentials)
        .where(afterId ? gt(exchangeCredentials.id, afterId) : undefined)
        .orderBy(asc(exchangeCredentials.id))
        .limit(size);
    },

    /** Replaces the ciphertexts only if they are still the ones read (a concurrent update wins). */
    async replaceSealed(
      id: string,
      before: { apiKeySealed: string; apiSecretSealed: string; apiPassphraseSealed: string | null },
      after: { apiKeySealed: string; apiSecretSealed: string; apiPassphraseSealed: string | null },
    ): Promise<boolean> {
      const rows = await db
        .update(exchangeCredentials)
        .set(after)
        .where(
          and(
            eq(exchangeCredentials.id, id),
            eq(exchangeCredentials.apiKeySealed, before.apiKeySealed),
            eq(exchangeCredentials.apiSecretSealed, before.apiSecretSealed),
            sql`${exchangeCredentials.apiPassphraseSealed} IS NOT DISTINCT FROM ${before.apiPassphraseSealed}`,
          ),
        )
        .returning({ id: exchangeCredentials.id });
      return rows.length > 0;
    },
  };
}

export type CredentialsRepository = ReturnType<typeof createCredentialsRepository>;
