// Who may hold an account stream, checked when it opens and every second while it is open: the
// account must stay active and (for our own tokens) the device session live, or (for an API token) the
// token neither revoked nor expired. Suspension, deletion, logout, session and token revocation thus
// end a stream within about a second, on whichever instance the change was made, because the check
// reads the database, not a message. Admin events go to an admin's session, and to an admin's API
// token only when it holds `admin:read` (`stream:read` alone is the account's own events).
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.ts';
import type { UsersModule } from '../users/index.ts';

export interface StreamPrincipal {
  userId: string;
  /** Our device session; null for an identity provider's token or an API token. */
  sessionId: string | null;
  /** The API token (`tpk_…`) the stream was opened with, checked instead of a session; null otherwise. */
  apiTokenId: string | null;
  admin: boolean;
}

/** Whether a principal of this role (and, for an API token, these scopes) receives admin events. */
export function receivesAdminEvents(role: string, apiTokenScopes?: readonly string[]): boolean {
  return role === 'admin' && (apiTokenScopes === undefined || apiTokenScopes.includes('admin:read'));
}

type AccessVerdict = { ok: true; admin: boolean } | { ok: false; reason: 'suspended' | 'revoked' };

interface Watched {
  principal: StreamPrincipal;
  /** Called with the verdict whenever it is not ok, or the admin flag changed. */
  onChange(verdict: AccessVerdict): void;
}

export function createStreamAccess(deps: {
  users: {
    sessions: Pick<UsersModule['sessions'], 'principals'>;
    accounts: Pick<UsersModule['accounts'], 'findMany'>;
    apiTokens: Pick<UsersModule['apiTokens'], 'principals'>;
  };
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
}) {
  const { users, clock, logger } = deps;
  const watched = new Set<Watched>();
  let timer: NodeJS.Timeout | undefined;
  let checking = false;

  async function verdicts(principals: StreamPrincipal[]): Promise<Map<StreamPrincipal, AccessVerdict>> {
    const sessionIds = [...new Set(principals.flatMap((p) => (p.sessionId ? [p.sessionId] : [])))];
    const tokenIds = [...new Set(principals.flatMap((p) => (p.apiTokenId ? [p.apiTokenId] : [])))];
    const userIds = [...new Set(principals.filter((p) => !p.sessionId && !p.apiTokenId).map((p) => p.userId))];
    const [sessions, accounts, tokens] = await Promise.all([
      users.sessions.principals(sessionIds),
      users.accounts.findMany(userIds),
      users.apiTokens.principals(tokenIds),
    ]);
    const bySession = new Map(sessions.map((s) => [s.sessionId, s]));
    const byUser = new Map(accounts.map((a) => [a.id, a]));
    const byToken = new Map(tokens.map((t) => [t.tokenId, t]));
    const now = clock.now();
    const answer = new Map<StreamPrincipal, AccessVerdict>();
    for (const p of principals) {
      if (p.apiTokenId) {
        const row = byToken.get(p.apiTokenId);
        if (!row || row.userId !== p.userId || row.revokedAt !== null || row.expiresAt <= now)
          answer.set(p, { ok: false, reason: 'revoked' });
        else if (row.status !== 'active') answer.set(p, { ok: false, reason: 'suspended' });
        else answer.set(p, { ok: true, admin: receivesAdminEvents(row.role, row.scopes) });
      } else if (p.sessionId) {
        const row = bySession.get(p.sessionId);
        if (row && row.id === p.userId && row.status !== 'active') answer.set(p, { ok: false, reason: 'suspended' });
        else if (!row || row.id !== p.userId || row.revokedAt !== null || row.expiresAt <= now)
          answer.set(p, { ok: false, reason: 'revoked' });
        else answer.set(p, { ok: true, admin: row.role === 'admin' });
      } else {
        const row = byUser.get(p.userId);
        answer.set(
          p,
          row && row.status === 'active'
            ? { ok: true, admin: row.role === 'admin' }
            : { ok: false, reason: 'suspended' },
        );
      }
    }
    return answer;
  }

  async function sweep(): Promise<void> {
    if (checking || watched.size === 0) return;
    checking = true;
    try {
      const entries = [...watched];
      const answer = await verdicts(entries.map((w) => w.principal));
      for (const entry of entries) {
        const verdict = answer.get(entry.principal)!;
        if (!verdict.ok || verdict.admin !== entry.principal.admin) entry.onChange(verdict);
      }
    } catch (error) {
      // The database is unreachable: streams stay as they are until the next check can be made.
      logger.warn({ err: error }, 'account streams: access check failed');
    } finally {
      checking = false;
    }
  }

  return {
    async check(principal: StreamPrincipal): Promise<AccessVerdict> {
      return (await verdicts([principal])).get(principal)!;
    },

    /** Re-checks the principal every interval while the stream is open; answers the stop. */
    watch(principal: StreamPrincipal, onChange: Watched['onChange']): () => void {
      const entry = { principal, onChange };
      watched.add(entry);
      if (!timer) {
        timer = setInterval(() => void sweep(), deps.intervalMs ?? 1_000);
        timer.unref();
      }
      return () => {
        watched.delete(entry);
        if (watched.size === 0) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },

    stop(): void {
      clearInterval(timer);
      timer = undefined;
      watched.clear();
    },
  };
}

export type StreamAccess = ReturnType<typeof createStreamAccess>;
