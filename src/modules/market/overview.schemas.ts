import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../platform/http/schemas.ts';
import { FreshnessFields, Limit, PairFields } from './common.schemas.ts';

const num = (description: string) => Type.Number({ description });
const int = (description: string) => Type.Integer({ description });
const maybe = (description: string) => Nullable(Type.Number({ description }));

export const TopQuery = Type.Object({ limit: Limit(1, 250, 100, 'Number of assets by market cap;') });
export const MoversQuery = Type.Object({ limit: Limit(1, 50, 10, 'Gainers and losers each;') });
export const HeatmapQuery = Type.Object({ limit: Limit(10, 100, 50, 'Number of tiles;') });
export const TrendingQuery = Type.Object({ limit: Limit(5, 50, 20, 'Number of trending pairs;') });

const TopAssetRow = Type.Object({
  rank: int('Market-cap rank.'),
  id: Type.String({ description: 'CoinGecko id, e.g. `bitcoin`.' }),
  asset: Type.String({ description: 'Asset ticker, upper case, e.g. `BTC`.' }),
  name: Type.String({ description: 'Asset name.' }),
  symbol: Nullable(Type.String({ description: 'The asset/USDT pair in venue form when Binance lists it, else null.' })),
  base: Type.String({ description: 'The asset.' }),
  quote: Nullable(Type.String({ description: '`USDT` when `symbol` is set, else null.' })),
  image: Nullable(Type.String({ description: 'Logo URL.' })),
  price: maybe('Price in USD.'),
  market_cap: maybe('Market cap in USD.'),
  volume_24h: maybe('24 h volume in USD.'),
  high_24h: maybe('24 h high in USD.'),
  low_24h: maybe('24 h low in USD.'),
  change_24h: maybe('Price change over 24 h in USD.'),
  change_percent_24h: maybe('Price change over 24 h in percent.'),
  circulating_supply: maybe('Circulating supply.'),
  total_supply: maybe('Total supply.'),
  max_supply: maybe('Maximum supply, null when uncapped or unknown.'),
  ath: maybe('All-time high in USD.'),
  ath_date: Nullable(Type.String({ description: 'When the all-time high was reached.' })),
  last_updated: Nullable(Type.String({ description: "CoinGecko's update time of the row." })),
});

export const TopResponse = Type.Object({
  assets: Type.Array(TopAssetRow, { description: 'Largest market cap first.' }),
  count: int('Number of assets.'),
  vs_currency: Type.String({ description: 'Currency of the figures: `usd`.' }),
  ...FreshnessFields,
});
export type TopResponse = Static<typeof TopResponse>;

const MarketPair = Type.Object({
  ...PairFields,
  price: num('Last price.'),
  change_percent: num('Price change over 24 h in percent.'),
  volume: num('24 h volume in the base asset.'),
  quote_volume: num('24 h volume in the quote asset.'),
  trades: int('Trades in 24 h.'),
});

export const StatsResponse = Type.Object({
  global: Type.Object(
    {
      total_market_cap_usd: maybe('Total crypto market cap in USD.'),
      total_volume_usd: maybe('Total 24 h volume in USD.'),
      market_cap_change_percent_24h: maybe('Change of the total market cap over 24 h, percent.'),
      btc_dominance: maybe("Bitcoin's share of the total market cap, percent."),
      eth_dominance: maybe("Ether's share of the total market cap, percent."),
      market_cap_percentage: Type.Record(Type.String(), Type.Number(), {
        description: 'Asset → share of the total market cap, percent.',
      }),
      active_cryptocurrencies: maybe('Assets tracked by CoinGecko.'),
      markets: maybe('Exchanges tracked by CoinGecko.'),
      updated_at: Nullable(DateTime("CoinGecko's update time.")),
    },
    { description: 'Whole-market figures from CoinGecko /global.' },
  ),
  venue: Type.Object(
    {
      pairs_trading: int('Pairs trading on Binance.'),
      pairs_traded_24h: int('Pairs with at least one trade in 24 h.'),
      total_trades_24h: int('Trades in 24 h across all pairs.'),
      total_quote_volume_usdt: num(
        '24 h quote volume across pairs, valued in USDT (pairs without a USDT price left out).',
      ),
      gainers: int('Traded pairs up over 24 h.'),
      losers: int('Traded pairs down over 24 h.'),
      unchanged: int('Traded pairs unchanged over 24 h.'),
      average_change_percent: num('Mean 24 h change of the traded pairs, percent.'),
    },
    { description: 'Aggregates of Binance 24 h tickers.' },
  ),
  ...FreshnessFields,
});
export type StatsResponse = Static<typeof StatsResponse>;

export const MoversResponse = Type.Object({
  gainers: Type.Array(MarketPair, { description: 'Pairs with the largest 24 h rise, largest first (only rises).' }),
  losers: Type.Array(MarketPair, { description: 'Pairs with the largest 24 h fall, largest fall first (only falls).' }),
  universe: int('Traded pairs considered.'),
  ...FreshnessFields,
});
export type MoversResponse = Static<typeof MoversResponse>;

export const HeatmapResponse = Type.Object({
  tiles: Type.Array(
    Type.Object({
      asset: Type.String({ description: 'Base asset of the tile.' }),
      ...MarketPair.properties,
      size: num('Tile size: 24 h quote volume in USDT.'),
      share_percent: num('Share of the tiles shown, percent.'),
    }),
    { description: 'USDT pairs with the largest 24 h quote volume, largest first.' },
  ),
  count: int('Number of tiles.'),
  size_metric: Type.String({ description: 'What `size` measures: `quote_volume_usdt`.' }),
  total_size: num('Sum of the tile sizes.'),
  ...FreshnessFields,
});
export type HeatmapResponse = Static<typeof HeatmapResponse>;

const VolumeBucket = {
  quote_volume_usdt: num('24 h quote volume valued in USDT.'),
  share_percent: num('Share of the total, percent.'),
  pairs: int('Pairs in the bucket.'),
};

export const VolumeDistributionResponse = Type.Object({
  reference_quote: Type.String({ description: 'Asset the volumes are valued in: `USDT`.' }),
  total_quote_volume_usdt: num('24 h quote volume of all priced pairs, in USDT.'),
  assets: Type.Array(Type.Object({ asset: Type.String({ description: 'Base asset.' }), ...VolumeBucket }), {
    description: 'The 20 base assets with the most volume, largest first.',
  }),
  other: Type.Object(
    { ...VolumeBucket, assets: int('Base assets in the bucket.') },
    { description: 'All other base assets together.' },
  ),
  quotes: Type.Array(Type.Object({ quote: Type.String({ description: 'Quote asset.' }), ...VolumeBucket }), {
    description: 'Share of volume by quote asset, largest first.',
  }),
  unpriced_pairs: int('Traded pairs left out because their quote asset has no USDT price.'),
  ...FreshnessFields,
});
export type VolumeDistributionResponse = Static<typeof VolumeDistributionResponse>;

export const ActivityResponse = Type.Object({
  total_trades_24h: int('Trades in 24 h across all pairs.'),
  active_pairs: int('Pairs with at least one trade in 24 h.'),
  total_quote_volume_usdt: num('24 h quote volume valued in USDT (pairs without a USDT price left out).'),
  most_traded: Type.Array(MarketPair, { description: 'The 20 pairs with the most trades, most first.' }),
  by_quote: Type.Array(
    Type.Object({
      quote: Type.String({ description: 'Quote asset.' }),
      trades: int('Trades in 24 h.'),
      share_percent: num('Share of all trades, percent.'),
    }),
    { description: 'Trades by quote asset, most first.' },
  ),
  ...FreshnessFields,
});
export type ActivityResponse = Static<typeof ActivityResponse>;

export const TRENDING_RULE =
  'score = 24 h trades × |24 h price change %|, over pairs traded in 24 h; highest first, ties by symbol';

export const TrendingResponse = Type.Object({
  pairs: Type.Array(
    Type.Object({
      rank: int('Position, from 1.'),
      ...MarketPair.properties,
      score: num('Trending score (see `rule`).'),
    }),
    { description: 'Highest score first.' },
  ),
  count: int('Number of pairs.'),
  rule: Type.String({ description: 'How pairs are ranked.' }),
  ...FreshnessFields,
});
export type TrendingResponse = Static<typeof TrendingResponse>;
