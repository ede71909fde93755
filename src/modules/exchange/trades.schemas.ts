// Trades: requests and responses.
import { Type } from 'typebox';
import { DateTime, Nullable, RowOffset, Uuid } from '../../platform/http/schemas.ts';
import { CredentialIdField, EndDate, ErrorTypeField, PageLimit, StartDate, VenueField } from './common.schemas.ts';

const SymbolField = (description: string) => Type.String({ minLength: 1, maxLength: 40, description });

export const TradesQuery = Type.Object({
  exchange: VenueField(),
  symbol: Type.Optional(SymbolField('Only this pair: BTCUSDT, BTC/USDT or BTC-USDT, any case.')),
  start_date: StartDate(),
  end_date: EndDate(),
  limit: PageLimit(),
  offset: RowOffset('Rows to skip. Default 0.'),
});

export const TradeSyncQuery = Type.Object({
  exchange: VenueField(),
  credential_id: Type.Optional(CredentialIdField()),
  symbol: Type.Optional(
    SymbolField(
      'The pair to sync. Without it, every pair of a currency you hold (latest balance snapshot) against a ' +
        'quote currency the venue lists, at most 20.',
    ),
  ),
  since: Type.Optional(
    DateTime(
      'Start from this instant (ISO 8601) instead of after the newest trade stored for the credential and pair.',
    ),
  ),
  limit: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 100,
    description:
      "Trades to fetch per pair in this call, 1 to 1000 (Binance's maximum). Default 100. When a pair has " +
      'more, has_more is true and the next sync continues where this one stopped.',
  }),
});

export const TradeStatsQuery = Type.Object({
  exchange: Type.Optional(VenueField('Only this venue.')),
  start_date: StartDate(),
  end_date: EndDate(),
});

const Trade = Type.Object({
  id: Uuid('Our id.'),
  exchange_trade_id: Type.String({ description: "The venue's trade id (unique per pair)." }),
  exchange: Type.String({ description: 'Venue.' }),
  symbol: Type.String({ description: 'Pair, ccxt unified (BTC/USDT).' }),
  side: Type.String({ description: 'buy or sell (unknown on a failed row).' }),
  price: Nullable(Type.Number({ description: 'Price in the quote currency.' })),
  amount: Nullable(Type.Number({ description: 'Amount of the base currency.' })),
  total: Nullable(Type.Number({ description: 'price × amount, in the quote currency.' })),
  fee: Nullable(Type.Number({ description: 'Fee paid.' })),
  fee_currency: Nullable(Type.String({ description: 'Currency of the fee.' })),
  trade_timestamp: DateTime('When the trade happened.'),
  sync_status: Type.String({ description: 'synced, or failed when the venue sent the trade incompletely.' }),
  created_at: DateTime('When it was stored.'),
});

export const TradeList = Type.Object({
  trades: Type.Array(Trade, { description: 'Newest first.' }),
  exchange: Type.String({ description: 'Venue.' }),
  symbol: Nullable(Type.String({ description: 'The pair asked for, if any.' })),
  total_records: Type.Integer({ description: 'Matching trades in all.' }),
  has_more: Type.Boolean({ default: false, description: 'Whether more follow after this page.' }),
});

export const TradeSyncResult = Type.Object({
  success: Type.Boolean({ description: 'Whether every pair synced.' }),
  user_id: Uuid('You.'),
  exchange: Type.String({ description: 'Venue.' }),
  symbol: Nullable(Type.String({ description: 'The pair asked for (unified); null for a full sync.' })),
  symbols_synced: Type.Array(Type.String(), { description: 'The pairs asked about.' }),
  trades_synced: Type.Integer({ description: 'New trades stored.' }),
  trades_duplicate: Type.Integer({ description: 'Trades already stored, skipped.' }),
  has_more: Type.Boolean({
    description: 'Whether some pair filled its page of `limit`: sync again to fetch the rest (nothing is skipped).',
  }),
  markets: Type.Array(
    Type.Object({
      symbol: Type.String({ description: 'Pair (unified).' }),
      fetched: Type.Integer({ description: 'Trades the venue sent for it in this call (at most `limit`).' }),
      synced: Type.Integer({ description: 'Of those, newly stored.' }),
      duplicate: Type.Integer({ description: 'Of those, already stored.' }),
      has_more: Type.Boolean({ description: 'The page was full: more trades may follow.' }),
      next_cursor: Type.Object(
        {
          from_id: Nullable(
            Type.String({ description: 'The venue trade id the next sync starts from (Binance fromId).' }),
          ),
          since: Nullable(DateTime('The instant the next sync starts from, on venues without ordered ids.')),
        },
        {
          description:
            'Where the next sync of this pair continues; it is derived from the stored trades, so ' +
            'nothing needs to be passed back.',
        },
      ),
    }),
    { description: 'Per pair asked: what this call fetched and where the next continues.' },
  ),
  timestamp: DateTime('When the sync ran.'),
  error: Nullable(Type.String({ description: 'What the venue said, on failure (trades stored before it are kept).' })),
  error_type: ErrorTypeField(),
});

export const TradeStats = Type.Object({
  total_trades: Type.Integer({ description: 'Trades in the window.' }),
  buy_count: Type.Integer({ description: 'Buys.' }),
  sell_count: Type.Integer({ description: 'Sells.' }),
  synced_count: Type.Integer({ description: 'Complete trades.' }),
  failed_count: Type.Integer({ description: 'Trades the venue sent incompletely.' }),
  total_volume: Type.Number({ description: 'Σ total (quote currency), summed exactly.' }),
  total_fees: Type.Number({ description: 'Σ fee, summed exactly, whatever the fee currency.' }),
  first_trade: Nullable(DateTime('Earliest trade in the window.')),
  last_trade: Nullable(DateTime('Latest trade in the window.')),
  start_date: Nullable(DateTime('The window asked for.')),
  end_date: Nullable(DateTime('The window asked for.')),
  exchange: Nullable(Type.String({ description: 'The venue asked for, if any.' })),
});
