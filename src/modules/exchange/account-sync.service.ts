// Keeping every active credential in sync (the sync-accounts job): its balance, then the new trades
// of the markets it holds, one credential after another, each call admitted only within the job's
// share of the venue's weight budget so that users' own requests keep room (docs/decisions/112).
// When the budget refuses a venue, its remaining credentials are deferred, and the venue's next run
// starts with the first of them (a rotation in id order, kept in the cache), so none is starved.
import type { Logger } from 'pino';
import type { Cache } from '../../platform/cache/cache.ts';
import { AppError } from '../../platform/http/errors.ts';
import { BudgetRefusal, UserShareRefusal, withBudgetShare } from '../../platform/venue-budget/venue-budget.ts';
import type { createBalancesService } from './balances.service.ts';
import type { CredentialsRepository } from './credentials.repository.ts';
import type { createTradesService } from './trades.service.ts';
import type { createTransfersService } from './transfers.service.ts';
import { isVenue, type Venue } from './venues.domain.ts';

/** Credentials one run looks at. */
const MAX_CREDENTIALS_PER_RUN = 10_000;
const RESUME_TTL_MS = 7 * 24 * 3_600_000;
const resumeKey = (venue: string) => `exchange:sync-accounts:resume:${venue}`;

/** The venue's credentials in id order, rotated to start at the first id ≥ `resumeAt`. */
function rotate<T extends { id: string }>(credentials: readonly T[], resumeAt: string | undefined): T[] {
  const start = resumeAt === undefined ? 0 : credentials.findIndex((c) => c.id >= resumeAt);
  return start <= 0 ? [...credentials] : [...credentials.slice(start), ...credentials.slice(0, start)];
}
/** Trades per market and call: Binance's maximum, so a call of weight 20 brings up to 1000 fills. */
const JOB_TRADE_LIMIT = 1000;

/** One credential's part of a run. */
export interface AccountSyncResult {
  credentialId: string;
  userId: string;
  /** The credential's venue, as stored. */
  venue: string;
  status: 'synced' | 'failed' | 'deferred';
  /** Currencies in the balance snapshot taken; null when none was. */
  currenciesSynced: number | null;
  tradesSynced: number;
  transfersSynced: number;
  /** A market or a transfer type has more to read: the next run continues. */
  hasMore: boolean;
  error: string | null;
  errorType: string | null;
  /** When deferred: seconds until the venue can be called again. */
  retryAfterSeconds: number | null;
}

export function createAccountSyncService(deps: {
  repo: Pick<CredentialsRepository, 'activeInIdOrder'>;
  cache: Pick<Cache, 'get' | 'set' | 'del'>;
  balances: Pick<ReturnType<typeof createBalancesService>, 'sync'>;
  trades: Pick<ReturnType<typeof createTradesService>, 'sync'>;
  transfers: Pick<ReturnType<typeof createTransfersService>, 'sync'>;
  logger: Logger;
}) {
  async function syncOne(venue: Venue, credential: { id: string; userId: string }): Promise<AccountSyncResult> {
    const ctx = { id: credential.userId, byJob: true };
    const base = { credentialId: credential.id, userId: credential.userId, venue };
    const balance = await deps.balances.sync(venue, credential.id, ctx);
    if (!balance.success) {
      return {
        ...base,
        status: 'failed',
        currenciesSynced: null,
        tradesSynced: 0,
        transfersSynced: 0,
        hasMore: false,
        error: balance.error,
        errorType: balance.errorType,
        retryAfterSeconds: null,
      };
    }
    const trades = await deps.trades.sync(venue, { credentialId: credential.id, limit: JOB_TRADE_LIMIT }, ctx);
    // Deposits and withdrawals after the trades; a venue that fails the trades is not asked again.
    const transfers = trades.success
      ? await deps.transfers.sync(venue, { credentialId: credential.id }, ctx)
      : undefined;
    const failed = !trades.success ? trades : transfers && !transfers.success ? transfers : undefined;
    return {
      ...base,
      status: failed ? 'failed' : 'synced',
      currenciesSynced: balance.balances.length,
      tradesSynced: trades.tradesSynced,
      transfersSynced: transfers?.transfersSynced ?? 0,
      hasMore: trades.hasMore || (transfers?.hasMore ?? false),
      error: failed?.error ?? null,
      errorType: failed?.errorType ?? null,
      retryAfterSeconds: null,
    };
  }

  async function syncCredential(
    credential: { id: string; userId: string; exchangeName: string },
    deferredVenues: Map<string, BudgetRefusal>,
    share: number,
  ): Promise<AccountSyncResult> {
    const base = { credentialId: credential.id, userId: credential.userId, venue: credential.exchangeName };
    const idle = { currenciesSynced: null, tradesSynced: 0, transfersSynced: 0, hasMore: false };
    const deferred = (refusal: BudgetRefusal | UserShareRefusal): AccountSyncResult => ({
      ...base,
      ...idle,
      status: 'deferred',
      error: String(refusal.detail),
      errorType: 'rate_limit',
      retryAfterSeconds: Math.ceil(refusal.retryAfterSeconds),
    });
    const refusal = deferredVenues.get(credential.exchangeName);
    if (refusal) return deferred(refusal);
    if (!isVenue(credential.exchangeName)) {
      return {
        ...base,
        ...idle,
        status: 'failed',
        error: `${credential.exchangeName} is not a supported venue`,
        errorType: 'exchange',
        retryAfterSeconds: null,
      };
    }
    const venue = credential.exchangeName;
    try {
      return await withBudgetShare(share, () => syncOne(venue, credential));
    } catch (error) {
      // The owner spent their share of the minute: this credential waits for the next run, the others go on.
      if (error instanceof UserShareRefusal) return deferred(error);
      if (error instanceof BudgetRefusal) {
        // Trades stored before the refusal are kept; the next run continues after them.
        deferredVenues.set(venue, error);
        return deferred(error);
      }
      if (!(error instanceof AppError))
        deps.logger.error(
          { err: error, credentialId: credential.id },
          'sync-accounts: a credential failed unexpectedly',
        );
      const detail =
        error instanceof AppError && typeof error.detail === 'string' ? error.detail : 'the sync failed unexpectedly';
      return { ...base, ...idle, status: 'failed', error: detail, errorType: null, retryAfterSeconds: null };
    }
  }

  return {
    /** Every active credential, within `share` of each venue's budget; never throws for one credential. */
    async syncAll(share: number): Promise<AccountSyncResult[]> {
      const results: AccountSyncResult[] = [];
      const deferredVenues = new Map<string, BudgetRefusal>();
      const all = await deps.repo.activeInIdOrder(MAX_CREDENTIALS_PER_RUN);
      const venues = [...new Set(all.map((c) => c.exchangeName))].sort();
      for (const venueName of venues) {
        const resumeAt = await deps.cache.get<string>(resumeKey(venueName)).catch(() => undefined);
        let firstDeferred: string | undefined;
        for (const credential of rotate(
          all.filter((c) => c.exchangeName === venueName),
          resumeAt,
        )) {
          const result = await syncCredential(credential, deferredVenues, share);
          if (result.status === 'deferred') firstDeferred ??= credential.id;
          results.push(result);
        }
        const remember = firstDeferred
          ? deps.cache.set(resumeKey(venueName), firstDeferred, RESUME_TTL_MS)
          : deps.cache.del(resumeKey(venueName));
        await remember.catch(() => undefined);
      }
      return results;
    },
  };
}
