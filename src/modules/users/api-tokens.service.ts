// The use cases of scoped API tokens (decision 144): issued to their owner, listed while live,
// revoked by their owner only. Run in the caller's transaction where one is named, executor last.
import type { DbExecutor } from '../../platform/db/database.ts';
import type { ApiTokenRow, ApiTokensRepository } from './api-tokens.repository.ts';

export function createApiTokensService(deps: { apiTokens: ApiTokensRepository }) {
  const { apiTokens } = deps;
  return {
    async issue(
      token: { userId: string; name: string; prefix: string; tokenHash: string; scopes: string[]; expiresAt: Date },
      now: Date,
      tx: DbExecutor,
    ): Promise<ApiTokenRow> {
      return apiTokens.insert({ ...token, scopes: [...new Set(token.scopes)], createdAt: now }, tx);
    },
    /** The owner's tokens that are neither revoked nor expired, oldest first. */
    listLive: (userId: string, now: Date) => apiTokens.listLive(userId, now),
    /** Revokes the owner's live token; answers whether there was one (another's token is not found). */
    revoke: (id: string, userId: string, now: Date, tx: DbExecutor) => apiTokens.revoke(id, userId, now, tx),
    /** Tokens by id with their owner's role and status, whatever their state: for re-checking open streams. */
    principals: (ids: string[]) => apiTokens.principalsById(ids),
  };
}

export type ApiTokensService = ReturnType<typeof createApiTokensService>;
