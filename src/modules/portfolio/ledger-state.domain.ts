// The ledger's state kept between requests (docs/decisions/156): as JSON for the store, and forked for the
// next trades without copying what they leave alone (docs/decisions/940).
import { D, emptyLedger, type Ledger, type Lot } from './ledger.domain.ts';

type StoredLot = { asset: string; exchange: string; openedAt: string; amount: string; cost: string };

/** A ledger as JSON (decimal strings), without its closed parts: what the incremental store keeps. */
export interface StoredLedger {
  quote: string;
  lots: StoredLot[];
  realized: Record<string, string>;
  fees: string;
  netDeposits: string;
}

/**
 * Each lot's JSON, written once: a lot is never changed in place, and a forked ledger shares the lots
 * the new trades leave alone, so storing it again writes only the new lots' decimals as strings.
 */
const storedLots = new WeakMap<Lot, StoredLot>();

function storeLot(l: Lot): StoredLot {
  let stored = storedLots.get(l);
  if (!stored) {
    stored = {
      asset: l.asset,
      exchange: l.exchange,
      openedAt: l.openedAt.toISOString(),
      amount: l.amount.toString(),
      cost: l.cost.toString(),
    };
    storedLots.set(l, stored);
  }
  return stored;
}

export function storeLedger(ledger: Ledger): StoredLedger {
  const lots: StoredLot[] = [];
  for (const assetLots of ledger.lots.values()) for (const l of assetLots) lots.push(storeLot(l));
  return {
    quote: ledger.quote,
    lots,
    realized: Object.fromEntries([...ledger.realized].map(([asset, gain]) => [asset, gain.toString()])),
    fees: ledger.fees.toString(),
    netDeposits: ledger.netDeposits.toString(),
  };
}

/** The stored state back as a ledger (lots in their order; no closed parts). */
export function restoreLedger(stored: StoredLedger): Ledger {
  const ledger = emptyLedger(stored.quote);
  for (const l of stored.lots) {
    const lot: Lot = {
      asset: l.asset,
      exchange: l.exchange,
      openedAt: new Date(l.openedAt),
      amount: new D(l.amount),
      cost: new D(l.cost),
    };
    storedLots.set(lot, l);
    let lots = ledger.lots.get(l.asset);
    if (!lots) ledger.lots.set(l.asset, (lots = []));
    lots.push(lot);
  }
  for (const [asset, gain] of Object.entries(stored.realized)) ledger.realized.set(asset, new D(gain));
  ledger.fees = new D(stored.fees);
  ledger.netDeposits = new D(stored.netDeposits);
  return ledger;
}

/**
 * A new ledger starting where `ledger` stands, without its closed parts, to apply the next events to:
 * it shares every asset's lots with `ledger` until an event changes that asset (then only that asset's
 * array of lot references is copied), so `ledger` stays as it was and the fork costs the assets the
 * new events touch, not every open lot as a copy through the stored JSON did.
 */
export function forkLedger(ledger: Ledger): Ledger {
  return {
    quote: ledger.quote,
    lots: new Map(ledger.lots),
    closed: [],
    realized: new Map(ledger.realized),
    fees: ledger.fees,
    netDeposits: ledger.netDeposits,
    shared: new Set(ledger.lots.keys()),
  };
}
