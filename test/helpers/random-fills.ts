// Random fill histories for the strategy figures' tests (metrics-fold, metrics-lots): the same fills on
// every run for one seed and mix. Buys and sells on two markets (BTC/USDT seven times in ten), prices
// wandering by up to 5% a trade, sells of one to three fills a little apart in price, fees in either asset
// (the base three times in ten); a minute between orders.
import type { MetricsFill } from '../../src/modules/strategies/metrics.domain.ts';
import { seeded } from './seeded.ts';

/** What differs between histories: how many orders buy, and how much a fill of each side trades. */
export interface FillMix {
  /** The share of orders that buy, in [0, 1]. */
  buys: number;
  /** A fill's amount from `r`, a random number in [0, 1). */
  amount(side: 'buy' | 'sell', r: number): number;
}

/** Buys and sells as often, each of 0.1 to 1.1 units. */
export const EVEN_MIX: FillMix = { buys: 0.5, amount: (_side, r) => 0.1 + r };

/**
 * Mostly small buys (three orders in four, of 0.05 to 0.38 units), now and then a large sell closing many
 * lots: of 0.2 to 0.2 + `sellSize` units a fill.
 */
export const lotHeavyMix = (sellSize = 1.5): FillMix => ({
  buys: 0.75,
  amount: (side, r) => (side === 'buy' ? 0.05 + r / 3 : 0.2 + r * sellSize),
});

/** At least `n` fills (the last order's all: up to two more) of seed `seed`, traded as `mix` says. */
export function randomFills(seed: number, n: number, mix: FillMix = EVEN_MIX): MetricsFill[] {
  const next = seeded(seed);
  const out: MetricsFill[] = [];
  let price = 100;
  for (let i = 0; out.length < n; i++) {
    price = Math.max(1, price * (1 + (next() - 0.5) / 10));
    const symbol = next() < 0.7 ? 'BTC/USDT' : 'ETH/USDT';
    const side = next() < mix.buys ? 'buy' : 'sell';
    const legs = side === 'sell' ? 1 + Math.floor(next() * 3) : 1;
    for (let leg = 0; leg < legs; leg++) {
      const feeInBase = next() < 0.3;
      out.push({
        tradeId: `paper:${String(out.length).padStart(6, '0')}`,
        orderId: `o${i}`,
        symbol,
        side,
        price: (price * (1 + leg / 200)).toFixed(2),
        amount: mix.amount(side, next()).toFixed(4),
        fee: feeInBase ? '0.0001' : '0.05',
        feeCurrency: feeInBase ? symbol.split('/')[0]! : 'USDT',
        at: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
      });
    }
  }
  return out;
}
