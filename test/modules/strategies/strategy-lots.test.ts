// A strategy's open lots are kept in a table of their own, not in the state of its figures (decision
// 930): a fill reads the lots it closes from the oldest, however many are open, and the figures and the
// lots stay those of the computation from all the fills; a state stored with its lots gives them up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import type { StrategyFill } from '../../../src/modules/strategies/index.ts';
import { strategyMetrics } from '../../../src/modules/strategies/metrics.domain.ts';
import { stateOfFills } from '../../../src/modules/strategies/metrics-fold.domain.ts';
import { allLots, type StoredLot } from '../../../src/modules/strategies/metrics-lots.domain.ts';
import { createStrategiesRepository } from '../../../src/modules/strategies/strategies.repository.ts';
import { createUserStrategiesService } from '../../../src/modules/strategies/user-strategies.service.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { planClient, rowsRead, statementPlansOf } from '../../helpers/plans.ts';
import { seeded } from '../../helpers/seeded.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';

const START = Date.UTC(2026, 0, 1);

/** Orders of one fill, or sells of two: mostly buys, on two markets, fees in either asset; a minute apart. */
function history(seed: number, orders: number, prefix: string): StrategyFill[][] {
  // Seeded: the same history on every run.
  const next = seeded(seed);
  let price = 100;
  return Array.from({ length: orders }, (_, i) => {
    price = Math.max(1, price * (1 + (next() - 0.5) / 10));
    const symbol = next() < 0.7 ? 'BTC/USDT' : 'ETH/USDT';
    const side = next() < 0.7 ? 'buy' : 'sell';
    return Array.from({ length: side === 'sell' ? 2 : 1 }, (_, leg): StrategyFill => {
      const feeInBase = next() < 0.3;
      return {
        tradeId: `paper:${prefix}-${i}-${leg}`,
        orderId: `${prefix}-o${i}`,
        symbol,
        side,
        price: (price * (1 + leg / 300)).toFixed(2),
        amount: (side === 'buy' ? 0.05 + next() / 3 : 0.05 + next() / 5).toFixed(4),
        fee: feeInBase ? '0.0001' : '0.05',
        feeCurrency: feeInBase ? symbol.split('/')[0]! : 'USDT',
        at: new Date(START + i * 60_000 + leg * 1_000),
      };
    });
  });
}

describe('a strategy’s open lots in a table of their own', () => {
  let t: TestApp;
  let userId: string;
  const clock = fixedClock(new Date(START + 86_400_000 * 400));

  before(async () => {
    t = await buildTestApp({ clock });
    userId = (await signIn(t.app, t.database)).id;
  });
  after(() => t.close());

  const strategy = async () =>
    (await t.modules.strategies.service.create({ name: 'lots', ownerUserId: userId, status: 'paper' })).id;

  const sql = <R>(text: string, params: unknown[] = []) =>
    planClient(t)
      .query<R>(text, params)
      .then((r) => r.rows);

  /**
   * The stored lots equal `expected` (numeric gives the decimals back in its own form); `renumbered`:
   * numbered otherwise, but in the same order, one after another.
   */
  async function assertLots(id: string, expected: StoredLot[], renumbered = false): Promise<void> {
    const rows = await sql<StoredLot>(
      'SELECT symbol, seq, amount::text, cost::text FROM strategy_lots WHERE strategy_id = $1 ORDER BY symbol, seq',
      [id],
    );
    const want = [...expected].sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : a.seq - b.seq));
    const numbers = (lots: Pick<StoredLot, 'symbol' | 'seq'>[]) =>
      lots.map((l, k) => {
        const before = lots[k - 1]?.symbol === l.symbol ? Number(lots[k - 1]!.seq) : Number(l.seq) - 1;
        return [l.symbol, renumbered ? Number(l.seq) - before : Number(l.seq)];
      });
    assert.deepEqual(numbers(rows), numbers(want));
    rows.forEach((row, k) => {
      assert.ok(new Decimal(row.amount).eq(want[k]!.amount), `${row.amount} ≠ ${want[k]!.amount}`);
      assert.ok(new Decimal(row.cost).eq(want[k]!.cost), `${row.cost} ≠ ${want[k]!.cost}`);
    });
  }

  it('give the figures and the lots of the computation from all the fills, over a random history', async () => {
    const id = await strategy();
    const { recordFills } = t.modules.strategies.userStrategies;
    const orders = history(11, 240, 'r');
    const all: StrategyFill[] = [];
    for (const [k, order] of orders.entries()) {
      all.push(...order);
      const figures = await recordFills(id, order);
      assert.deepEqual(figures, strategyMetrics(all), `after order ${k}`);
      if (k % 60 === 59) await assertLots(id, allLots(stateOfFills(all)));
    }
    assert.ok(strategyMetrics(all).paper_trades! > 40);
    assert.ok(allLots(stateOfFills(all)).length > 50, 'lots pile up');
  });

  it('a sell reads the lots it closes, not every lot open, and the stored state stays small', async () => {
    const id = await strategy();
    const { recordFills } = t.modules.strategies.userStrategies;
    const buys = Array.from(
      { length: 3_000 },
      (_, i): StrategyFill => ({
        tradeId: `paper:b${i}`,
        orderId: `b${i}`,
        symbol: 'BTC/USDT',
        side: 'buy',
        price: (100 + (i % 7)).toFixed(2),
        amount: '0.2',
        fee: '0.05',
        feeCurrency: 'USDT',
        at: new Date(START + i * 1_000),
      }),
    );
    for (let i = 0; i < buys.length; i += 500) await recordFills(id, buys.slice(i, i + 500));
    // Two sells closing five lots between them, then a buy (a new lot at the far end).
    const sell = (i: number, side: 'buy' | 'sell'): StrategyFill => ({
      ...buys[0]!,
      tradeId: `paper:s${i}`,
      orderId: `s${i}`,
      side,
      amount: '0.5',
      at: new Date(START + (buys.length + i) * 1_000),
    });
    const next = [sell(0, 'sell'), sell(1, 'sell'), sell(2, 'buy')];
    let figures: unknown;
    const statements = await statementPlansOf(
      t,
      async (db) => {
        const service = createUserStrategiesService({
          db,
          repo: createStrategiesRepository(db),
          clock,
          platformLimits: async () => ({ paper_transition_per_hour: 4 }),
        });
        figures = await service.recordFills(id, next);
      },
      { readsOnly: true },
    );
    assert.deepEqual(figures, strategyMetrics([...buys, ...next]));
    const read = statements.reduce((sum, s) => sum + rowsRead(s.plan, 'strategy_lots'), 0);
    assert.ok(read <= 16, `lot rows read: ${read} of ${buys.length}`);
    const [state] = await sql<{ size: number }>(
      'SELECT octet_length(metrics_state::text) AS size FROM strategies WHERE id = $1',
      [id],
    );
    assert.ok(Number(state!.size) < 2_000, `metrics_state: ${state!.size} bytes`);
    await assertLots(id, allLots(stateOfFills([...buys, ...next])));
  });

  it('a state stored with its lots (before decision 930) moves them to the table on the next fill', async () => {
    const id = await strategy();
    const { recordFills } = t.modules.strategies.userStrategies;
    const orders = history(5, 80, 'c');
    const first = orders.slice(0, 60).flat();
    await recordFills(id, first);
    // As such a strategy was stored: the lots in the state, none numbered, no row of them.
    const old: Record<string, unknown> = { ...stateOfFills(first) };
    delete old.numbers;
    await sql('UPDATE strategies SET metrics_state = $2::jsonb WHERE id = $1', [id, JSON.stringify(old)]);
    await sql('DELETE FROM strategy_lots WHERE strategy_id = $1', [id]);
    const all = [...first];
    for (const order of orders.slice(60)) {
      all.push(...order);
      assert.deepEqual(await recordFills(id, order), strategyMetrics(all));
    }
    await assertLots(id, allLots(stateOfFills(all)), true);
    const [state] = await sql<{ lots: unknown; numbers: unknown }>(
      "SELECT metrics_state -> 'lots' AS lots, metrics_state -> 'numbers' AS numbers FROM strategies WHERE id = $1",
      [id],
    );
    assert.deepEqual(state!.lots, {});
    assert.ok(state!.numbers);
  });
});
