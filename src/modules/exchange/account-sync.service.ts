// Keeping every active credential in sync (the sync-accounts job): its balance, then the new trades
// of the markets it holds, one credential after another, each call admitted only within the job's
// share of the venue's weight budget so that users' own requests keep room (docs/decisions/112).
// When the budget refuses a venue, its remaining credentials are deferred to the next run.
import type { Logger } from 'pino';
import { AppError } from '../../platform/http/errors.ts';
import { BudgetRefusal, withBudgetShare } from '../../platform/venue-budget/venue-budget.ts';
import type { createBalancesService } from './balances.service.ts';
import type { CredentialsRepository } from './credentials.repository.ts';
import type { createTradesService } from './trades.service.ts';
import { isVenue, type Venue } from './venues.ts';

const PAGE = 200;
/** Trades per market and call: Binance's maximum, so a call of weight 20 brings up to 1000 fills. */
export const JOB_TRADE_LIMIT = 1000;

export interface AccountSyncResult {
  credential_id: string;
  user_id: string;
  exchange: string;
  status: 'synced' | 'failed' | 'deferred';
  currencies_synced: number | null;
  trades_synced: number;
  has_more: boolean;
  error: string | null;
  error_type: string | null;
  retry_after_seconds: number | null;
}

export function createAccountSyncService(deps: {
  repo: Pick<CredentialsRepository, 'activePage'>;
  balances: Pick<ReturnType<typeof createBalancesService>, 'sync'>;
  trades: Pick<ReturnType<typeof createTradesService>, 'sync'>;
  logger: Logger;
}) {
  async function syncOne(venue: Venue, credential: { id: string; userId: string }): Promise<AccountSyncResult> {
    const ctx = { userId: credential.userId, ip: null, actor: 'job' as const };
    const base = { credential_id: credential.id, user_id: credential.userId, exchange: venue };
    const balance = await deps.balances.sync(venue, credential.id, ctx);
    if (!balance.success) {
      return { ...base, status: 'failed', currencies_synced: null, trades_synced: 0, has_more: false, error: balance.error, error_type: balance.error_type, retry_after_seconds: null };
    }
    const trades = await deps.trades.sync(venue, { credentialId: credential.id, limit: JOB_TRADE_LIMIT }, ctx);
    return {
      ...base,
      status: trades.success ? 'synced' : 'failed',
      currencies_synced: balance.currencies_synced,
      trades_synced: trades.trades_synced,
      has_more: trades.has_more,
      error: trades.error,
      error_type: trades.error_type,
      retry_after_seconds: null,
    };
  }

  return {
    /** Every active credential, within `share` of each venue's budget; never throws for one credential. */
    async syncAll(share: number): Promise<AccountSyncResult[]> {
      const results: AccountSyncResult[] = [];
      const deferredVenues = new Map<string, BudgetRefusal>();
      let after: string | null = null;
      for (;;) {
        const page = await deps.repo.activePage(after, PAGE);
        for (const credential of page) {
          const base = { credential_id: credential.id, user_id: credential.userId, exchange: credential.exchangeName };
          const idle = { currencies_synced: null, trades_synced: 0, has_more: false };
          const refusal = deferredVenues.get(credential.exchangeName);
          if (refusal) {
            results.push({ ...base, ...idle, status: 'deferred', error: String(refusal.detail), error_type: 'rate_limit', retry_after_seconds: refusal.retryAfterSeconds === undefined ? null : Math.ceil(refusal.retryAfterSeconds) });
            continue;
          }
          if (!isVenue(credential.exchangeName)) {
            results.push({ ...base, ...idle, status: 'failed', error: `${credential.exchangeName} is not a supported venue`, error_type: 'exchange', retry_after_seconds: null });
            continue;
          }
          const venue = credential.exchangeName;
          try {
            results.push(await withBudgetShare(share, () => syncOne(venue, credential)));
          } catch (error) {
            if (error instanceof BudgetRefusal) {
              deferredVenues.set(venue, error);
              results.push({ ...base, ...idle, status: 'deferred', error: String(error.detail), error_type: 'rate_limit', retry_after_seconds: Math.ceil(error.retryAfterSeconds) });
              continue;
            }
            if (!(error instanceof AppError)) deps.logger.error({ err: error, credentialId: credential.id }, 'sync-accounts: a credential failed unexpectedly');
            const detail = error instanceof AppError && typeof error.detail === 'string' ? error.detail : 'the sync failed unexpectedly';
            results.push({ ...base, ...idle, status: 'failed', error: detail, error_type: null, retry_after_seconds: null });
          }
        }
        if (page.length < PAGE) break;
        after = page.at(-1)!.id;
      }
      return results;
    },
  };
}
