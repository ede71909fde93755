// sync-accounts: every active exchange credential's balance, new trades and deposits and withdrawals, within a share of
// each venue's request-weight budget (docs/decisions/112).
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';
import { Nullable } from '../../platform/http/schemas.ts';
import type { AccountSyncResult as AccountResult } from './account-sync.service.ts';

export interface SyncAccountsDeps {
  accounts: { syncAll(share: number): Promise<AccountResult[]> };
  /** Share of each venue's budget the job may spend (SYNC_ACCOUNTS_BUDGET_PERCENT / 100). */
  syncAccountsShare: number;
}

export const SyncAccountsResult = Type.Object({
  credentials: Type.Integer({ description: 'Active credentials looked at.' }),
  synced: Type.Integer({ description: 'Balance and trades synced.' }),
  deferred: Type.Integer({
    description:
      "Left for the next run: the venue's budget share was used up or a 429/418 paused it; nothing was sent for them.",
  }),
  failed: Type.Integer({ description: 'The venue refused or failed (bad key, outage): see each result.' }),
  trades_synced: Type.Integer({ description: 'New trades stored over all credentials.' }),
  transfers_synced: Type.Integer({ description: 'New deposits and withdrawals stored over all credentials.' }),
  budget_share: Type.Number({ description: "Share of each venue's weight budget this run could spend (0–1)." }),
  results: Type.Array(
    Type.Object({
      credential_id: Type.String({ description: 'The credential.' }),
      user_id: Type.String({ description: 'Its owner.' }),
      exchange: Type.String({ description: 'Venue.' }),
      status: Type.String({ description: 'synced, failed or deferred.' }),
      currencies_synced: Nullable(
        Type.Integer({ description: 'Currencies in the balance snapshot taken; null when none was.' }),
      ),
      trades_synced: Type.Integer({ description: 'New trades stored.' }),
      transfers_synced: Type.Integer({ description: 'New deposits and withdrawals stored.' }),
      has_more: Type.Boolean({
        description:
          'A market had more trades than one page, or transfers more windows than one call ' +
          'reads: the next run continues.',
      }),
      error: Nullable(Type.String({ description: 'What the venue or the budget said.' })),
      error_type: Nullable(Type.String({ description: 'auth, rate_limit, network or exchange.' })),
      retry_after_seconds: Nullable(
        Type.Integer({ description: 'When deferred: seconds until the venue can be called again.' }),
      ),
    }),
    { description: 'One entry per credential, in the order they were synced.' },
  ),
});
export type SyncAccountsResult = Static<typeof SyncAccountsResult>;

type CredentialResult = SyncAccountsResult['results'][number];

function credentialResult(r: AccountResult): CredentialResult {
  return {
    credential_id: r.credentialId,
    user_id: r.userId,
    exchange: r.venue,
    status: r.status,
    currencies_synced: r.currenciesSynced,
    trades_synced: r.tradesSynced,
    transfers_synced: r.transfersSynced,
    has_more: r.hasMore,
    error: r.error,
    error_type: r.errorType,
    retry_after_seconds: r.retryAfterSeconds,
  };
}

async function syncAccounts(deps: SyncAccountsDeps, _now: Date): Promise<SyncAccountsResult> {
  const results = await deps.accounts.syncAll(deps.syncAccountsShare);
  const count = (status: AccountResult['status']) => results.filter((r) => r.status === status).length;
  return {
    credentials: results.length,
    synced: count('synced'),
    deferred: count('deferred'),
    failed: count('failed'),
    trades_synced: results.reduce((sum, r) => sum + r.tradesSynced, 0),
    transfers_synced: results.reduce((sum, r) => sum + r.transfersSynced, 0),
    budget_share: deps.syncAccountsShare,
    results: results.map(credentialResult),
  };
}

/**
 * Its units are the credentials: synced ones succeeded, failed ones failed, deferred ones neither (docs/decisions/126).
 */
function syncAccountsUnits(result: SyncAccountsResult) {
  return { total: result.credentials, succeeded: result.synced, failed: result.failed };
}

export const syncAccountsJob = defineJob({
  name: 'sync-accounts',
  unitName: 'credential',
  cron: '*/10 * * * *',
  summary: 'Sync the balances and new trades of every active exchange credential',
  description:
    "For each active credential, venue by venue in id order (a venue's run starts with the credential its " +
    'previous run deferred first, so none is starved): a balance snapshot, then the new trades of the markets ' +
    'it holds (each continuing after the newest stored trade, up to 1000 per market and run). Every venue call ' +
    "is charged to the venue's shared request-weight budget and admitted only " +
    "within SYNC_ACCOUNTS_BUDGET_PERCENT of it (50 % by default), so users' own requests keep room; when a " +
    "venue's share is used up, or a 429/418 paused it, its remaining credentials are reported `deferred` " +
    'with `retry_after_seconds` and wait for the next run. Reports per credential what it did. The run is ' +
    '`failed` when credentials failed and none was synced, `partial` when some failed.',
  result: SyncAccountsResult,
  run: syncAccounts,
  units: syncAccountsUnits,
});
