import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { fixedClock } from '../../platform/clock.ts';
import type { LedgerMarks } from './ledger.domain.ts';
import type { StoredLedger } from './ledger-state.domain.ts';
import type { PortfolioQuotes, PortfolioSource, PortfolioTradeRow } from './portfolio.deps.ts';
import type { LedgerStore, PortfolioRepository } from './portfolio.repository.ts';
import { createPortfolioService } from './portfolio.service.ts';
import { summaryWire } from './portfolio.wire.ts';

// The summary's work kept between requests (docs/decisions/156, 630), against a source, a ledger store
// and prices held in memory: the database's clock and every statement the summary makes are visible.
const HOUR = 3_600_000;
const MARGIN = 5 * 60_000;
const T0 = Date.UTC(2026, 0, 10, 12);

describe('the summary kept between requests', () => {
  let trades: PortfolioTradeRow[];
  let balances: { exchange: string; currency: string; total: string }[];
  let prices: Map<string, string>;
  let db: ReturnType<typeof fixedClock>;
  let marginCounts: number;
  let service: ReturnType<typeof createPortfolioService>;

  const trade = (id: number, side: 'buy' | 'sell', amount: string, price: string, at: number, stored: number) => ({
    id: String(id),
    exchange: 'binance',
    symbol: 'BTC/USDT',
    side,
    price,
    amount,
    total: String(Number(price) * Number(amount)),
    fee: '1',
    feeCurrency: 'USDT',
    tradeTimestamp: new Date(at),
    createdAt: new Date(stored),
  });

  beforeEach(() => {
    db = fixedClock(new Date(T0));
    marginCounts = 0;
    // Stored an hour before the database's clock: the commit margin before them has passed.
    trades = [
      trade(1, 'buy', '1', '40000', T0 - 30 * HOUR, T0 - HOUR),
      trade(2, 'buy', '1', '50000', T0 - 20 * HOUR, T0 - HOUR + 1),
      trade(3, 'sell', '0.5', '60000', T0 - 10 * HOUR, T0 - HOUR + 2),
    ];
    balances = [
      { exchange: 'binance', currency: 'BTC', total: '1.5' },
      { exchange: 'binance', currency: 'USDT', total: '1000' },
    ];
    prices = new Map([['BTCUSDT', '70000']]);
    const byTime = (a: PortfolioTradeRow, b: PortfolioTradeRow) =>
      a.tradeTimestamp.getTime() - b.tradeTimestamp.getTime() || Number(a.id) - Number(b.id);
    const source: PortfolioSource = {
      holdings: async () => balances.map((b) => ({ ...b })),
      trades: async () => [...trades].sort(byTime),
      tradesCreatedAfter: async (_user, at) => trades.filter((r) => r.createdAt.getTime() > at.getTime()).sort(byTime),
      tradeCountCreatedBetween: async (_user, from, to) => {
        marginCounts += 1;
        const count = trades.filter(
          (r) => r.createdAt.getTime() >= from.getTime() && r.createdAt.getTime() <= to.getTime(),
        ).length;
        return { count, at: db.now() };
      },
      transferCount: async () => 0,
      transfers: async () => [],
    };
    const stored = new Map<string, { state: StoredLedger; marks: LedgerMarks }>();
    const ledgers: LedgerStore = {
      marks: async (user, quote) => stored.get(`${user}:${quote}`)?.marks,
      load: async (user, quote) => stored.get(`${user}:${quote}`),
      save: async (user, quote, state, marks) => {
        stored.set(`${user}:${quote}`, { state: JSON.parse(JSON.stringify(state)), marks: { ...marks } });
      },
    };
    const quotes: PortfolioQuotes = {
      last: async () => ({ byPair: new Map([['BTC/USDT', { symbol: 'BTCUSDT' }]]), prices }),
      closeAt: async () => null,
      closed: async () => [],
    };
    service = createPortfolioService({
      source,
      quotes,
      candles: {} as PortfolioRepository,
      ledgers,
      clock: fixedClock(new Date(T0)),
    });
  });

  const summary = () => service.summary('user-1', { quote: 'USDT' });
  const answer = async () => summaryWire(await summary());
  const btc = async () => (await answer()).assets.find((a) => a.asset === 'BTC');

  it('counts the commit margin once it has passed, then no more; the answer unchanged', async () => {
    const first = await answer(); // the replay: stored, no count
    const second = await answer(); // the stored state: the margin counted, at an hour past it
    const third = await answer();
    assert.equal(marginCounts, 1, 'the margin is counted by the first summary of the stored state alone');
    assert.deepEqual(second, first);
    assert.deepEqual(third, first);
    // Lots 0.5 at 40001 (half of 1 bought for 40000 + fee 1) and 1 at 50001: cost 70001.5, worth 105000.
    assert.deepEqual(first.assets[0], {
      asset: 'BTC',
      amount: 1.5,
      price: 70000,
      value: 105000,
      cost_basis: 70001.5,
      unrealized_pnl: 34998.5,
      realized_pnl: 9998.5,
    });
  });

  it('keeps counting the margin until it has passed, and replays for a trade committed late within it', async () => {
    // Stored a minute ago: a statement that began before the newest may still commit.
    for (const [i, r] of trades.entries()) r.createdAt = new Date(T0 - 60_000 + i);
    await answer();
    await answer();
    db.set(new Date(T0 - 60_000 + 2 + MARGIN - 1)); // one millisecond short of the margin past the watermark
    await answer();
    assert.equal(marginCounts, 2, 'counted by every summary while the margin has not passed');
    // A buy of 1 at 30000 that began before the watermark commits now: it is the oldest lot.
    trades.push(trade(4, 'buy', '1', '30000', T0 - 40 * HOUR, T0 - 60_000 + 1));
    balances[0]!.total = '2.5';
    assert.deepEqual(await btc(), {
      asset: 'BTC',
      amount: 2.5,
      price: 70000,
      value: 175000,
      // The sell of 0.5 now closes half of the 30000 lot: lots 0.5 (15000.5), 1 (40001), 1 (50001).
      cost_basis: 105002.5,
      unrealized_pnl: 69997.5,
      realized_pnl: 14998.5,
    });
  });

  it('answers the same summary while the ledger, the balances and the prices are the same', async () => {
    await summary();
    const a = await summary();
    const b = await summary();
    assert.equal(b.summary, a.summary, 'valued once for the same ledger, amounts and prices');
  });

  it('shows a new trade, a balance change and a price change in the next summary', async () => {
    await answer();
    assert.equal((await btc())?.cost_basis, 70001.5);
    // A buy of 0.5 at 80000 (fee 1), stored after the watermark: a lot of 40001 on top.
    trades.push(trade(5, 'buy', '0.5', '80000', T0 - HOUR, T0 - 1000));
    balances[0]!.total = '2';
    assert.deepEqual(await btc(), {
      asset: 'BTC',
      amount: 2,
      price: 70000,
      value: 140000,
      cost_basis: 110002.5,
      unrealized_pnl: 29997.5,
      realized_pnl: 9998.5,
    });
    // The balance alone: 1.8 held, the newest lots kept: 0.5 (40001), 1 (50001) and 0.3 of 0.5 (20000.5).
    balances[0]!.total = '1.8';
    assert.equal((await btc())?.cost_basis, 102002.3);
    // The price alone: the market cache's prices change.
    prices = new Map([['BTCUSDT', '75000']]);
    assert.deepEqual(await btc(), {
      asset: 'BTC',
      amount: 1.8,
      price: 75000,
      value: 135000,
      cost_basis: 102002.3,
      unrealized_pnl: 32997.7,
      realized_pnl: 9998.5,
    });
  });
});
