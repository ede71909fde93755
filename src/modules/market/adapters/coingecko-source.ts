// CoinGecko API v3 (CoinGecko's API v3 documentation): /coins/markets for the top assets by market cap and /global
// for the whole market. The optional key travels in x-cg-demo-api-key or x-cg-pro-api-key.
import type { GlobalFigures, TopAsset } from '../market.types.ts';
import type { AssetMarketSource } from './market-source.ts';
import { shapes, type UpstreamClient } from './upstream-client.ts';

const VS_CURRENCY = 'usd';

export function coingeckoKeyHeaders(apiKey: string | undefined, plan: 'demo' | 'pro'): Record<string, string> {
  return apiKey ? { [`x-cg-${plan}-api-key`]: apiKey } : {};
}

/** CoinGecko's error bodies: `{error}` or `{status: {error_code, error_message}}`. */
export function describeCoinGeckoError(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as { error?: unknown; status?: { error_message?: unknown; error_code?: unknown } };
  if (typeof record.error === 'string') return record.error;
  if (record.status?.error_message)
    return `${String(record.status.error_message)} (code ${String(record.status.error_code)})`;
  return undefined;
}

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function createCoinGeckoSource(client: UpstreamClient): AssetMarketSource {
  return {
    name: 'coingecko',

    async topAssets(limit): Promise<TopAsset[]> {
      const rows = await client.get<Record<string, unknown>[]>('/coins/markets', shapes.listOf(shapes.record), {
        vs_currency: VS_CURRENCY,
        order: 'market_cap_desc',
        per_page: limit,
        page: 1,
        sparkline: 'false',
        price_change_percentage: '24h',
      });
      return rows.map((r) => ({
        id: String(r.id),
        symbol: String(r.symbol).toUpperCase(),
        name: String(r.name),
        image: str(r.image),
        currentPrice: num(r.current_price),
        marketCap: num(r.market_cap),
        marketCapRank: num(r.market_cap_rank),
        totalVolume: num(r.total_volume),
        high24h: num(r.high_24h),
        low24h: num(r.low_24h),
        priceChange24h: num(r.price_change_24h),
        priceChangePercentage24h: num(r.price_change_percentage_24h),
        circulatingSupply: num(r.circulating_supply),
        totalSupply: num(r.total_supply),
        maxSupply: num(r.max_supply),
        ath: num(r.ath),
        athDate: str(r.ath_date),
        lastUpdated: str(r.last_updated),
      }));
    },

    async globalFigures(): Promise<GlobalFigures> {
      const { data } = await client.get<{ data: Record<string, unknown> }>('/global', shapes.withRecord('data'));
      const usd = (value: unknown) => num((value as Record<string, unknown> | undefined)?.[VS_CURRENCY]);
      return {
        activeCryptocurrencies: num(data.active_cryptocurrencies),
        markets: num(data.markets),
        totalMarketCapUsd: usd(data.total_market_cap),
        totalVolumeUsd: usd(data.total_volume),
        marketCapPercentage: Object.fromEntries(
          Object.entries((data.market_cap_percentage ?? {}) as Record<string, unknown>).flatMap(([k, v]) =>
            num(v) === null ? [] : [[k, v as number]],
          ),
        ),
        marketCapChangePercentage24hUsd: num(data.market_cap_change_percentage_24h_usd),
        updatedAt: num(data.updated_at),
      };
    },

    usage: () => client.usage(),
  };
}
