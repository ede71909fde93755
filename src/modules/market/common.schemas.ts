// Pieces every market answer shares: where the data came from and how old it is, and the pair fields.
import { Type } from 'typebox';
import { DateTime } from '../../platform/http/schemas.ts';

export const tags = ['market'];

/** On every answer (and every ticker row): provenance and age of the data. */
export const FreshnessFields = {
  source: Type.String({
    description:
      'Where the data came from: `binance`, `coingecko`, `coingecko+binance`, or `simulated` ' +
      'when MARKET_DATA_SOURCE=simulated.',
  }),
  stale: Type.Boolean({
    description:
      'True when the upstream failed and a cached answer younger than the documented bound is served instead.',
  }),
  age_seconds: Type.Integer({ description: 'Age of the (oldest) data in this answer, in whole seconds.' }),
  updated_at: DateTime('When the (oldest) data in this answer was fetched from the upstream.'),
};

export const PairFields = {
  symbol: Type.String({ description: 'Pair in the venue form, e.g. `BTCUSDT`.' }),
  base: Type.String({ description: 'Base asset, e.g. `BTC`.' }),
  quote: Type.String({ description: 'Quote asset, e.g. `USDT`.' }),
};

export const SymbolParam = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 40,
    description: `${description} Accepted as BTCUSDT, BTC/USDT or BTC-USDT, in any case.`,
  });

export const SymbolList = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 2000,
    description:
      `${description} Comma-separated, at most 100; each as BTCUSDT, BTC/USDT or BTC-USDT, in any case. ` +
      'An unlisted symbol answers 404.',
  });

export const Limit = (minimum: number, maximum: number, fallback: number, description: string) =>
  Type.Optional(
    Type.Integer({
      minimum,
      maximum,
      default: fallback,
      description: `${description} ${minimum}..${maximum}, default ${fallback}.`,
    }),
  );

/** The routes whose loads are charged to the caller's address (decision 1190). */
export const CALLER_SHARE_NOTE =
  'An answer not cached yet is loaded at the venue within half of its request weight a minute, and within ' +
  "the calling address's share of it (`VENUE_USER_SHARE_PERCENT`): past that share, 429 with Retry-After " +
  "while other callers' loads go on.";

export const MARKET_ERRORS_NOTE =
  'Upstream failures answer 502 (upstream error), 503 (upstream paused after a rate limit, or ' +
  'budget used up; with Retry-After) or 504 (timeout), unless a cached answer within the stale ' +
  'bound can be served with `stale: true`.';
