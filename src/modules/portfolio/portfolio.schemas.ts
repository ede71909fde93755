// Portfolio: requests and responses. Money is in the report quote, rounded to 2 decimals for a fiat
// or stablecoin quote and 8 for another (BTC, ETH); amounts to 8 (docs/decisions/153, 893).
import { Type } from 'typebox';
import { DateTime, Nullable, StringEnum } from '../../platform/http/schemas.ts';
import { VenueField } from '../exchange/index.ts';

export const tags = ['portfolio'];

const QuoteField = () =>
  Type.String({
    minLength: 2,
    maxLength: 12,
    pattern: '^[A-Za-z0-9]+$',
    default: 'USDT',
    description:
      'The currency everything is valued in, any case: one the venue prices (a currency ' +
      'of a listed pair). Default USDT.',
  });

export const SummaryQuery = Type.Object({
  quote: QuoteField(),
  exchange: Type.Optional(
    VenueField('Only the holdings synced from this venue (the cost basis still follows every trade).'),
  ),
});

export const RealizedCsvQuery = Type.Object({ quote: QuoteField() });

const Money = (description: string) =>
  Type.Number({
    description: `${description} In the quote currency: 2 decimals for a fiat or stablecoin quote, 8 for another.`,
  });

const AssetSummary = Type.Object({
  asset: Type.String({ description: 'Currency.' }),
  amount: Type.Number({ description: 'Held now (latest synced balances), 8 decimals.' }),
  price: Nullable(
    Type.Number({
      description: 'Last price in the quote currency (the quote itself is 1); null when no listed pair prices it.',
    }),
  ),
  value: Money('amount × price.'),
  cost_basis: Money('FIFO cost of what is held.'),
  unrealized_pnl: Money('value − cost_basis.'),
  realized_pnl: Money('Σ (net proceeds − FIFO cost) of its closed lot parts.'),
});

export const Summary = Type.Object({
  quote: Type.String({ description: 'The currency of every figure.' }),
  as_of: DateTime('When the figures were computed (prices are the last ones then).'),
  value: Money('Σ assets[].value.'),
  cost_basis: Money('Σ assets[].cost_basis.'),
  unrealized_pnl: Money('Σ assets[].unrealized_pnl.'),
  realized_pnl: Money('Σ assets[].realized_pnl.'),
  fees: Money('Σ fees paid (trades and withdrawals), each valued when paid.'),
  net_deposits: Money('Deposits − withdrawals from outside your venues, each valued when it happened.'),
  assets: Type.Array(AssetSummary, { description: 'Per currency held or with a realized result, by name.' }),
});

export const RealizedCsv = Type.String({
  description:
    'CSV (RFC 4180, UTF-8, CRLF) with the header ' +
    'asset,exchange,opened_at,closed_at,amount,cost,proceeds,fee,gain,holding_days: one row per closed lot ' +
    'part, in the order they closed. amount has 8 decimals; cost, proceeds (gross), fee and gain (proceeds − ' +
    'fee − cost) 2 for a fiat or stablecoin quote and 8 for another (BTC, ETH), in the quote; holding_days whole days. opened_at and holding_days are empty for an amount ' +
    'sold beyond every known lot. A neutral record, not a tax report.',
});

export const HistoryQuery = Type.Object({
  quote: QuoteField(),
  start: Type.Optional(DateTime("The window's start (ISO 8601). Default: 30 days before end.")),
  end: Type.Optional(DateTime("The window's end (ISO 8601), at most now. Default: now.")),
  interval: StringEnum(['1h', '1d'] as const, {
    default: '1d',
    description: 'One point per interval boundary (UTC), 1h or 1d. Default 1d. At most 1000 points.',
  }),
});

export const History = Type.Object({
  quote: Type.String({ description: 'The currency of every value.' }),
  interval: Type.String({ description: 'The interval asked for.' }),
  points: Type.Array(
    Type.Object({
      ts: DateTime('The instant valued: an interval boundary, or now for the last point when the window ends now.'),
      value: Type.Number({
        description:
          'What was held then, at the close of the candle that ended then (now: the last price); 2 decimals for a fiat or stablecoin quote, 8 for another.',
      }),
      net_deposits: Type.Number({
        description:
          'Deposits − withdrawals up to then, each valued when it happened; 2 decimals for a fiat or stablecoin quote, 8 for another.',
      }),
    }),
    { description: 'Oldest first.' },
  ),
  twr: Nullable(
    Type.Number({
      description:
        "Time-weighted return over the window, as a fraction (0.1 = 10 %): each period's growth with its flows " +
        'taken out, chained. Null when no period starts with a value.',
    }),
  ),
  mwr: Nullable(
    Type.Number({
      description:
        'Money-weighted return (XIRR), as an annual fraction: the first value paid in, the flows as they ' +
        'happened, the last value taken out. Null when it has no solution.',
    }),
  ),
});
