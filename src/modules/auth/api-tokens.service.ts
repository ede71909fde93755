// Scoped API tokens for scripts and bots (decision 144): made and revoked by their owner through a
// session (never with another token), shown once, stored as a hash, never above their owner.
import { audit } from './auth.audit.ts';
import { newApiToken, SHOWN_PREFIX_LENGTH } from '../../platform/auth/api-token-format.ts';
import { ADMIN_SCOPES } from '../../platform/auth/scopes.ts';
import { hashToken } from '../../platform/auth/tokens.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { invalidField, notFound } from '../../platform/http/errors.ts';
import { parseUserId, type ApiTokenRow, type UsersModule } from '../users/index.ts';
import type { ApiTokenCreateBody } from './auth.schemas.ts';

const DAY_MS = 86_400_000;
const DEFAULT_TOKEN_DAYS = 90;

export function createApiTokensService(deps: { db: Db; users: Pick<UsersModule, 'apiTokens'>; clock: Clock }) {
  const { db, clock } = deps;
  const { apiTokens } = deps.users;
  return {
    async create(
      owner: { id: string; role: string },
      body: ApiTokenCreateBody,
      ip?: string,
    ): Promise<{ row: ApiTokenRow; token: string }> {
      if (owner.role !== 'admin' && body.scopes.some((scope) => ADMIN_SCOPES.includes(scope))) {
        throw invalidField(
          ['body', 'scopes'],
          'the admin scopes are for admins only: a token never exceeds its owner',
          body.scopes,
        );
      }
      const token = newApiToken();
      const now = clock.now();
      const days = body.expires_in_days ?? DEFAULT_TOKEN_DAYS;
      const row = await db.transaction(async (tx) => {
        const created = await apiTokens.issue(
          {
            userId: owner.id,
            name: body.name,
            prefix: token.slice(0, SHOWN_PREFIX_LENGTH),
            tokenHash: hashToken(token),
            scopes: body.scopes,
            expiresAt: new Date(now.getTime() + days * DAY_MS),
          },
          now,
          tx,
        );
        await audit(
          {
            actorId: owner.id,
            actorType: 'user',
            action: 'auth.api_token.create',
            subjectUserId: owner.id,
            targetType: 'api_token',
            targetId: created.id,
            ip,
            details: { name: body.name, scopes: created.scopes, expiresInDays: days },
          },
          now,
          tx,
        );
        return created;
      });
      return { row, token };
    },

    async list(ownerId: string): Promise<ApiTokenRow[]> {
      return apiTokens.listLive(ownerId, clock.now());
    },

    async revoke(ownerId: string, tokenId: string, ip?: string): Promise<void> {
      const id = parseUserId(tokenId);
      const now = clock.now();
      const revoked = await db.transaction(async (tx) => {
        if (!id || !(await apiTokens.revoke(id, ownerId, now, tx))) return false;
        await audit(
          {
            actorId: ownerId,
            actorType: 'user',
            action: 'auth.api_token.revoke',
            subjectUserId: ownerId,
            targetType: 'api_token',
            targetId: id,
            ip,
          },
          now,
          tx,
        );
        return true;
      });
      if (!revoked) throw notFound('API token not found');
    },
  };
}

export type ApiTokensService = ReturnType<typeof createApiTokensService>;
