// Every query on API tokens. A method that may run inside a caller's transaction takes its executor last.
import { and, arrayOverlaps, asc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { DbExecutor } from '../../platform/db/database.ts';
import { apiTokens, users } from './users.tables.ts';

export type ApiTokenRow = typeof apiTokens.$inferSelect;

/** Last use is recorded at most this often per token. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function createApiTokensRepository(db: DbExecutor) {
  // Built once: it runs for every request made with an API token.
  const principalQuery = db
    .select({
      tokenId: apiTokens.id,
      scopes: apiTokens.scopes,
      expiresAt: apiTokens.expiresAt,
      revokedAt: apiTokens.revokedAt,
      lastUsedAt: apiTokens.lastUsedAt,
      id: users.id,
      email: users.email,
      role: users.role,
      status: users.status,
      twoFactorEnabled: users.twoFactorEnabled,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(eq(apiTokens.tokenHash, sql.placeholder('tokenHash')))
    .limit(1)
    .prepare('api_token_principal');

  return {
    async insert(
      token: {
        userId: string;
        name: string;
        prefix: string;
        tokenHash: string;
        scopes: string[];
        createdAt: Date;
        expiresAt: Date;
      },
      executor: DbExecutor = db,
    ): Promise<ApiTokenRow> {
      const [row] = await executor.insert(apiTokens).values(token).returning();
      return row!;
    },
    /** The user's tokens that are neither revoked nor expired, oldest first. */
    async listLive(userId: string, now: Date): Promise<ApiTokenRow[]> {
      return db
        .select()
        .from(apiTokens)
        .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt), sql`${apiTokens.expiresAt} > ${now}`))
        .orderBy(asc(apiTokens.createdAt), asc(apiTokens.id));
    },
    /** Revokes the user's live token; answers whether there was one. */
    async revoke(id: string, userId: string, at: Date, executor: DbExecutor = db): Promise<boolean> {
      const rows = await executor
        .update(apiTokens)
        .set({ revokedAt: at })
        .where(and(eq(apiTokens.id, id), eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)))
        .returning({ id: apiTokens.id });
      return rows.length > 0;
    },
    /** Revokes every live token of these users; answers how many. */
    async revokeAllOf(userIds: string[], at: Date, executor: DbExecutor = db): Promise<number> {
      if (userIds.length === 0) return 0;
      const rows = await executor
        .update(apiTokens)
        .set({ revokedAt: at })
        .where(and(inArray(apiTokens.userId, userIds), isNull(apiTokens.revokedAt)))
        .returning({ id: apiTokens.id });
      return rows.length;
    },
    /**
     * Takes `scopes` out of every live token of the user, for good; a token left with no scope can do
     * nothing and is revoked. Answers how many tokens lost a scope.
     */
    async dropScopes(userId: string, scopes: readonly string[], at: Date, executor: DbExecutor = db): Promise<number> {
      const dropped = sql`ARRAY(SELECT s FROM unnest(${apiTokens.scopes}) AS s WHERE NOT (s = ANY (ARRAY[${sql.join(
        scopes.map((scope) => sql`${scope}`),
        sql`, `,
      )}]::text[])))`;
      const rows = await executor
        .update(apiTokens)
        .set({
          scopes: dropped,
          revokedAt: sql`CASE WHEN cardinality(${dropped}) = 0 THEN ${at}::timestamptz END`,
        })
        .where(
          and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt), arrayOverlaps(apiTokens.scopes, [...scopes])),
        )
        .returning({ id: apiTokens.id });
      return rows.length;
    },
    /** The token and its owner, as the guards check them. */
    async principal(tokenHash: string) {
      const [row] = await principalQuery.execute({ tokenHash });
      return row;
    },
    /** Tokens by id with their owners, as an open stream re-checks them (revoked and expired ones too). */
    async principalsById(ids: string[]) {
      if (ids.length === 0) return [];
      return db
        .select({
          tokenId: apiTokens.id,
          userId: apiTokens.userId,
          scopes: apiTokens.scopes,
          expiresAt: apiTokens.expiresAt,
          revokedAt: apiTokens.revokedAt,
          role: users.role,
          status: users.status,
        })
        .from(apiTokens)
        .innerJoin(users, eq(users.id, apiTokens.userId))
        .where(inArray(apiTokens.id, ids));
    },
    async touch(id: string, at: Date): Promise<void> {
      await db
        .update(apiTokens)
        .set({ lastUsedAt: at })
        .where(
          and(
            eq(apiTokens.id, id),
            or(
              isNull(apiTokens.lastUsedAt),
              lt(apiTokens.lastUsedAt, new Date(at.getTime() - LAST_USED_RESOLUTION_MS)),
            ),
          ),
        );
    },
  };
}

export type ApiTokensRepository = ReturnType<typeof createApiTokensRepository>;
