// The exchange module's answers on the wire for a user's account data (credentials, key validation,
// balances, Binance settings, trades, transfers): the services return rows and camelCase values, and
// the routes answer through these mappers, each typed by its response schema. The public venue data
// has its own (venues.wire.ts).
import type { Static } from 'typebox';
import { iso } from '../../platform/http/schemas.ts';
import type { BalanceRow } from './balances.repository.ts';
import type { BalanceHistory as BalanceHistorySchema, BalanceResponse, BalanceSyncResult } from './balances.schemas.ts';
import type { BalanceHistory, BalanceSnapshot, BalanceSync } from './balances.service.ts';
import type { DustAssets, FeeTokenBurn } from './binance-account.schemas.ts';
import type { BurnSetting, DustReport } from './binance-account.service.ts';
import type {
  Credential,
  CredentialDetail,
  CredentialList,
  DeleteResult,
  ValidationResult,
} from './credentials.schemas.ts';
import type { CredentialRow } from './credentials.repository.ts';
import type { KeyValidation } from './validation.service.ts';
import type { TradeRow } from './trades.repository.ts';
import type { TradeList, TradeStats, TradeSyncResult } from './trades.schemas.ts';
import type { TradePage, TradeStatistics, TradeSync } from './trades.service.ts';
import type { TransferRow } from './transfers.repository.ts';
import type { TransferList, TransferSyncResult } from './transfers.schemas.ts';
import type { TransferPage, TransferSync } from './transfers.service.ts';
import { FEE_TOKEN } from './venues.domain.ts';

/** A stored decimal as the API shows it: a number, null kept. */
const num = (value: string | null) => (value === null ? null : Number(value));

/** A credential as the API shows it: never its key, secret or passphrase. */
export function credentialWire(row: CredentialRow): Credential {
  return {
    id: row.id,
    user_id: row.userId,
    exchange_name: row.exchangeName,
    credential_name: row.credentialName,
    permissions: row.permissions,
    ip_whitelist: row.ipWhitelist,
    exchange_metadata: row.exchangeMetadata,
    is_active: row.isActive,
    last_used: iso(row.lastUsed),
    last_validation: iso(row.lastValidation),
    validation_status: row.validationStatus,
    validation_error: row.validationError,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

/** A credential with its masked key and whether a passphrase is stored. */
export function credentialDetailWire(row: CredentialRow): CredentialDetail {
  return {
    ...credentialWire(row),
    api_key_masked: row.apiKeyMasked,
    has_passphrase: row.apiPassphraseSealed !== null,
  };
}

export function credentialListWire(rows: CredentialRow[]): CredentialList {
  return { credentials: rows.map(credentialWire), total_count: rows.length };
}

export function credentialDeletedWire(id: string): DeleteResult {
  return { success: true, message: 'Credential deleted', deleted_id: id };
}

export function validationWire(validation: KeyValidation): ValidationResult {
  return {
    valid: validation.valid,
    exchange: validation.exchange,
    cause: validation.cause,
    message: validation.message,
    permissions: validation.permissions,
    ip_restricted: validation.ipRestricted,
    currencies_with_balance: validation.currenciesWithBalance,
    warnings: validation.warnings,
    retry_after: validation.retryAfter,
    checked_at: iso(validation.checkedAt)!,
    updated_credential_ids: validation.updatedCredentialIds,
  };
}

function balanceEntry(row: BalanceRow) {
  return {
    currency: row.currency,
    free: Number(row.free),
    locked: Number(row.locked),
    total: Number(row.total),
    sync_timestamp: iso(row.syncTimestamp)!,
  };
}

export function balanceSyncWire(sync: BalanceSync): Static<typeof BalanceSyncResult> {
  return {
    success: sync.success,
    user_id: sync.userId,
    exchange: sync.venue,
    currencies_synced: sync.balances.length,
    balances: Object.fromEntries(
      sync.balances.map((b) => [
        b.currency,
        { free: Number(b.free), locked: Number(b.locked), total: Number(b.total) },
      ]),
    ),
    timestamp: iso(sync.syncedAt)!,
    error: sync.error,
    error_type: sync.errorType,
  };
}

export function balancesWire(snapshot: BalanceSnapshot): Static<typeof BalanceResponse> {
  return {
    balances: Object.fromEntries(snapshot.rows.map((row) => [row.currency, balanceEntry(row)])),
    exchange: snapshot.venue,
    currency: snapshot.currency,
    last_sync: iso(snapshot.syncedAt),
  };
}

export function balanceHistoryWire(history: BalanceHistory): Static<typeof BalanceHistorySchema> {
  return {
    history: history.rows.map((row) => ({ ...balanceEntry(row), sync_status: row.syncStatus })),
    exchange: history.venue,
    currency: history.currency,
    total_records: history.total,
  };
}

export function feeTokenBurnWire(setting: BurnSetting): Static<typeof FeeTokenBurn> {
  return {
    exchange: setting.venue,
    fee_token: FEE_TOKEN,
    spot_feetoken_burn: setting.burn.spot,
    interest_feetoken_burn: setting.burn.interest,
    credential_id: setting.credentialId,
  };
}

export function dustAssetsWire(report: DustReport): Static<typeof DustAssets> {
  const { dust } = report;
  return {
    exchange: report.venue,
    fee_token: FEE_TOKEN,
    credential_id: report.credentialId,
    assets: dust.assets.map((a) => ({
      asset: a.asset,
      asset_name: a.name,
      amount_free: num(a.free),
      to_btc: num(a.toBtc),
      to_feetoken: num(a.toFeeToken),
      to_feetoken_after_fee: num(a.toFeeTokenAfterFee),
      fee: num(a.fee),
      usd_value: num(a.usdValue),
    })),
    total_btc: num(dust.totalBtc),
    total_feetoken: num(dust.totalFeeToken),
    fee_rate: num(dust.feeRate),
    count: dust.assets.length,
  };
}

function tradeWire(row: TradeRow): Static<typeof TradeList>['trades'][number] {
  return {
    id: row.id,
    exchange_trade_id: row.exchangeTradeId,
    exchange: row.exchange,
    symbol: row.symbol,
    side: row.side,
    price: num(row.price),
    amount: num(row.amount),
    total: num(row.total),
    fee: num(row.fee),
    fee_currency: row.feeCurrency,
    trade_timestamp: iso(row.tradeTimestamp)!,
    sync_status: row.syncStatus,
    created_at: iso(row.createdAt)!,
  };
}

export function tradeListWire(page: TradePage): Static<typeof TradeList> {
  return {
    trades: page.rows.map(tradeWire),
    exchange: page.venue,
    symbol: page.symbol,
    total_records: page.total,
    has_more: page.hasMore,
  };
}

export function tradeSyncWire(sync: TradeSync): Static<typeof TradeSyncResult> {
  return {
    success: sync.success,
    user_id: sync.userId,
    exchange: sync.venue,
    symbol: sync.symbol,
    symbols_synced: sync.symbols,
    trades_synced: sync.tradesSynced,
    trades_duplicate: sync.tradesDuplicate,
    has_more: sync.hasMore,
    markets: sync.markets.map((m) => ({
      symbol: m.symbol,
      fetched: m.fetched,
      synced: m.synced,
      duplicate: m.duplicate,
      has_more: m.hasMore,
      next_cursor: { from_id: m.nextCursor.fromId, since: iso(m.nextCursor.since) },
    })),
    timestamp: iso(sync.syncedAt)!,
    error: sync.error,
    error_type: sync.errorType,
  };
}

export function tradeStatsWire(answer: TradeStatistics): Static<typeof TradeStats> {
  const { stats } = answer;
  return {
    total_trades: stats.total_trades,
    buy_count: stats.buy_count,
    sell_count: stats.sell_count,
    synced_count: stats.synced_count,
    failed_count: stats.failed_count,
    total_volume: Number(stats.total_volume),
    total_fees: Number(stats.total_fees),
    first_trade: iso(stats.first_trade),
    last_trade: iso(stats.last_trade),
    start_date: iso(answer.start),
    end_date: iso(answer.end),
    exchange: answer.venue,
  };
}

function transferWire(row: TransferRow): Static<typeof TransferList>['transfers'][number] {
  return {
    id: row.id,
    exchange_transfer_id: row.exchangeTransferId,
    exchange: row.exchange,
    type: row.type,
    currency: row.currency,
    amount: Number(row.amount),
    fee: Number(row.fee),
    txid: row.txid,
    status: row.status,
    transfer_timestamp: iso(row.transferTimestamp)!,
    created_at: iso(row.createdAt)!,
  };
}

export function transferListWire(page: TransferPage): Static<typeof TransferList> {
  return {
    transfers: page.rows.map(transferWire),
    exchange: page.venue,
    total_records: page.total,
    has_more: page.hasMore,
  };
}

export function transferSyncWire(sync: TransferSync): Static<typeof TransferSyncResult> {
  return {
    success: sync.success,
    user_id: sync.userId,
    exchange: sync.venue,
    transfers_synced: sync.transfersSynced,
    has_more: sync.hasMore,
    types: sync.kinds.map((k) => ({
      type: k.type,
      fetched: k.fetched,
      synced: k.synced,
      skipped: k.skipped.map((skip) => ({ exchange_transfer_id: skip.id, reason: skip.reason })),
      windows: k.windows,
      has_more: k.hasMore,
      synced_until: iso(k.syncedUntil),
    })),
    timestamp: iso(sync.syncedAt)!,
    error: sync.error,
    error_type: sync.errorType,
  };
}
