// The summary, pure: holdings valued against the ledger's lots, rounded so every total is the sum
// of its rounded parts (docs/decisions/150, 153, 893).
import type { Static } from 'typebox';
import { D, roundAmount, roundMoney, type Dec, type Ledger, type Lot } from './ledger.domain.ts';
import type { Summary as SummaryAnswer } from './portfolio.schemas.ts';

const ZERO = new D(0);

/** The cost of the newest `held` units of an asset's lots (the ones FIFO keeps), and the units no lot covers. */
function heldCost(lots: readonly Lot[], held: Dec): { cost: Dec; uncovered: Dec } {
  let left = held;
  let cost = ZERO;
  for (let i = lots.length - 1; i >= 0 && left.gt(0); i -= 1) {
    const lot = lots[i]!;
    if (lot.amount.lte(left)) {
      cost = cost.plus(lot.cost);
      left = left.minus(lot.amount);
    } else {
      cost = cost.plus(lot.cost.times(left).div(lot.amount));
      left = ZERO;
    }
  }
  return { cost, uncovered: left };
}

/**
 * What `heldCost` answered per asset for a held amount. A ledger's lots never change once it is answered
 * (docs/decisions/156), and the walk does not depend on the price: kept per ledger by the caller, a price
 * change values the holdings without walking the lots again (docs/decisions/890).
 */
export type HeldCosts = Map<string, { amount: string; cost: Dec; uncovered: Dec }>;

export interface Holding {
  asset: string;
  amount: Dec;
  /** Last price in the report quote; null when no market prices it. */
  price: Dec | null;
}

type AssetFigures = Static<typeof SummaryAnswer>['assets'][number];

/** An asset's figures: the summary answer's fields, as exact decimals. */
export type AssetSummary = {
  [K in keyof AssetFigures]: K extends 'asset' ? string : K extends 'price' ? Dec | null : Dec;
};

/** The totals of the summary answer (without its quote and time), as exact decimals, and each asset's. */
export type Summary = {
  [K in Exclude<keyof Static<typeof SummaryAnswer>, 'quote' | 'as_of' | 'assets'>]: Dec;
} & { assets: AssetSummary[] };

/**
 * Values holdings against the ledger, rounded: each asset's value and cost basis to the quote's decimals (2 for fiat
 * and stablecoins, 8 for another quote: `moneyDecimals`), its
 * unrealized result their difference, every total the sum of the rounded parts (so they add up
 * exactly). The quote currency is worth 1 and is its own cost. Units held beyond every lot (held
 * before the synced history) are costed at today's price: no result is invented for them. Units
 * held without a price are valued at 0 and costed at 0. Assets sold out that still have a realized
 * result are listed with amount 0. `kept` holds the lots' walks of this ledger between calls.
 */
export function summarize(ledger: Ledger, holdings: readonly Holding[], kept: HeldCosts = new Map()): Summary {
  const byAsset = new Map<string, Holding>();
  for (const h of holdings) {
    const seen = byAsset.get(h.asset);
    byAsset.set(h.asset, seen ? { ...seen, amount: seen.amount.plus(h.amount) } : h);
  }
  for (const asset of ledger.realized.keys())
    if (!byAsset.has(asset)) byAsset.set(asset, { asset, amount: ZERO, price: null });
  const assets: AssetSummary[] = [];
  for (const h of [...byAsset.values()].sort((a, b) => a.asset.localeCompare(b.asset))) {
    const price = h.asset === ledger.quote ? new D(1) : h.price;
    const value = roundMoney(price ? h.amount.times(price) : ZERO, ledger.quote);
    let cost: Dec;
    if (h.asset === ledger.quote) cost = h.amount;
    else if (!price) cost = ZERO;
    else {
      const amount = h.amount.toString();
      let held = kept.get(h.asset);
      if (held?.amount !== amount) {
        held = { amount, ...heldCost(ledger.lots.get(h.asset) ?? [], h.amount) };
        kept.set(h.asset, held);
      }
      cost = held.cost.plus(held.uncovered.times(price));
    }
    const costBasis = roundMoney(cost, ledger.quote);
    assets.push({
      asset: h.asset,
      amount: roundAmount(h.amount),
      price,
      value,
      cost_basis: costBasis,
      unrealized_pnl: value.minus(costBasis),
      realized_pnl: roundMoney(ledger.realized.get(h.asset) ?? ZERO, ledger.quote),
    });
  }
  const sum = (pick: (a: AssetSummary) => Dec) => assets.reduce((acc, a) => acc.plus(pick(a)), ZERO);
  return {
    value: sum((a) => a.value),
    cost_basis: sum((a) => a.cost_basis),
    unrealized_pnl: sum((a) => a.unrealized_pnl),
    realized_pnl: sum((a) => a.realized_pnl),
    fees: roundMoney(ledger.fees, ledger.quote),
    net_deposits: roundMoney(ledger.netDeposits, ledger.quote),
    assets,
  };
}
