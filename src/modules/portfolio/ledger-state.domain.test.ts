import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEvents, dec, emptyLedger, type Ledger, type LedgerEvent } from './ledger.domain.ts';
import { forkLedger, restoreLedger, storeLedger } from './ledger-state.domain.ts';

const T0 = Date.UTC(2026, 0, 1);

/** A fixed pseudo-random history: buys, partial and whole sells, BNB fees, a non-quote pair, moves. */
function history(count: number): LedgerEvent[] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const out: LedgerEvent[] = [];
  for (let i = 0; i < count; i++) {
    const at = new Date(T0 + i * 60_000);
    const r = next();
    const base = r < 0.5 ? 'BTC' : r < 0.8 ? 'ETH' : 'BNB';
    const amount = dec((1 + Math.floor(next() * 300)) / 1000);
    const price = dec(100 + Math.floor(next() * 900));
    if (i % 17 === 5) {
      out.push({ kind: 'deposit', at, exchange: 'kraken', asset: base, amount, price });
    } else if (i % 19 === 7) {
      out.push({ kind: 'withdrawal', at, exchange: 'binance', asset: base, amount, fee: dec('0.001'), price });
    } else if (i % 23 === 11) {
      out.push({ kind: 'transfer', at, from: 'binance', to: 'kraken', asset: base, amount, fee: dec('0.0005'), price });
    } else {
      const side = next() < 0.6 ? 'buy' : 'sell';
      const quote = i % 13 === 3 ? 'ETH' : 'USDT';
      const feeCurrency = i % 3 === 0 ? 'BNB' : i % 3 === 1 ? base : quote;
      out.push({
        kind: 'trade',
        at,
        exchange: 'binance',
        base: base === quote ? 'BTC' : base,
        quote,
        side,
        amount,
        price,
        total: amount.times(price),
        fee: dec('0.0001'),
        feeCurrency,
        rate: quote === 'USDT' ? dec(1) : dec(2000),
        feeRate: feeCurrency === 'BNB' ? dec(300) : undefined,
      });
    }
  }
  return out;
}

/** Every figure of a ledger as text, read afresh (not through the stored lots' memo). */
const figures = (ledger: Ledger) =>
  JSON.stringify({
    lots: [...ledger.lots].map(([asset, lots]) => [
      asset,
      lots.map((l) => `${l.exchange} ${l.openedAt.toISOString()} ${l.amount} ${l.cost}`),
    ]),
    realized: [...ledger.realized].map(([asset, gain]) => `${asset} ${gain}`),
    fees: ledger.fees.toString(),
    netDeposits: ledger.netDeposits.toString(),
  });

describe('the kept ledger brought up to date by forks (decision 940)', () => {
  const events = history(400);

  it('equals the ledger computed from scratch, after each event applied to a fork of the last', () => {
    let kept = applyEvents(emptyLedger('USDT'), events.slice(0, 150));
    for (let i = 150; i < events.length; i += 1 + (i % 4)) {
      const batch = events.slice(i, i + 1 + (i % 4));
      const before = figures(kept);
      const fork = applyEvents(forkLedger(kept), batch);
      assert.equal(figures(kept), before, `the ledger forked from is unchanged by events ${i}..`);
      const scratch = applyEvents(emptyLedger('USDT'), events.slice(0, i + batch.length));
      assert.equal(figures(fork), figures(scratch), `after event ${i + batch.length}`);
      assert.deepEqual(storeLedger(fork), JSON.parse(JSON.stringify(storeLedger(scratch))));
      kept = fork;
    }
  });

  it('stores and restores a forked ledger exactly, its lots written as they were', () => {
    const kept = restoreLedger(JSON.parse(JSON.stringify(storeLedger(applyEvents(emptyLedger('USDT'), events)))));
    const fork = applyEvents(forkLedger(kept), history(420).slice(400));
    const scratch = applyEvents(emptyLedger('USDT'), history(420));
    assert.equal(JSON.stringify(storeLedger(fork)), JSON.stringify(storeLedger(scratch)));
    assert.equal(figures(restoreLedger(JSON.parse(JSON.stringify(storeLedger(fork))))), figures(scratch));
  });

  it('shares the lots of the assets the new events leave alone', () => {
    const kept = applyEvents(emptyLedger('USDT'), events);
    const fork = applyEvents(forkLedger(kept), [
      { kind: 'deposit', at: new Date(T0 + 1e9), exchange: 'binance', asset: 'ETH', amount: dec(1), price: dec(2000) },
    ]);
    assert.equal(fork.lots.get('BTC'), kept.lots.get('BTC'), 'untouched: the same array');
    assert.notEqual(fork.lots.get('ETH'), kept.lots.get('ETH'), 'touched: a copy');
    assert.equal(fork.lots.get('ETH')!.length, kept.lots.get('ETH')!.length + 1);
  });
});
