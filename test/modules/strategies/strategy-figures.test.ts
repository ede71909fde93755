// A strategy's figures are kept from the fills reported since the last ones, not computed again from all
// its fills on every fill (decision 850): after a history with reports that race each other they equal the
// figures computed from all the fills, and a report's statements read a few fill rows whatever the history.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { StrategyFill } from '../../../src/modules/strategies/index.ts';
import { strategyMetrics } from '../../../src/modules/strategies/metrics.domain.ts';
import { createStrategiesRepository } from '../../../src/modules/strategies/strategies.repository.ts';
import { createUserStrategiesService } from '../../../src/modules/strategies/user-strategies.service.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { rowsRead, statementPlansOf } from '../../helpers/plans.ts';
import { buildTestApp, signIn, type TestApp } from '../../helpers/test-app.ts';

const START = Date.UTC(2026, 0, 1);

/** Order `i`: a buy of 1 BTC, or a sell of 0.6 in two fills, at a wandering price; a minute apart. */
function order(i: number, strategy = 's'): StrategyFill[] {
  const price = (100 + 10 * Math.sin(i / 5)).toFixed(2);
  const at = (k: number) => new Date(START + i * 60_000 + k * 1_000);
  const leg = (k: number, side: 'buy' | 'sell', amount: string): StrategyFill => ({
    tradeId: `paper:${strategy}-${i}-${k}`,
    orderId: `${strategy}-o${i}`,
    symbol: 'BTC/USDT',
    side,
    price,
    amount,
    fee: '0.05',
    feeCurrency: 'USDT',
    at: at(k),
  });
  return i % 3 === 0 ? [leg(0, 'buy', '1')] : [leg(0, 'sell', '0.2'), leg(1, 'sell', '0.1')];
}

describe('strategy figures kept from new fills', () => {
  let t: TestApp;
  let userId: string;
  const clock = fixedClock(new Date(START + 86_400_000 * 400));

  before(async () => {
    t = await buildTestApp({ clock });
    userId = (await signIn(t.app, t.database)).id;
  });
  after(() => t.close());

  const strategy = async () =>
    (await t.modules.strategies.service.create({ name: 'kept', ownerUserId: userId, status: 'paper' })).id;

  it('equal the figures from all the fills after reports in order, repeated, racing and late', async () => {
    const id = await strategy();
    const { recordFills } = t.modules.strategies.userStrategies;
    const all: StrategyFill[] = [];
    for (let i = 0; i < 60; i++) all.push(...order(i));
    // In order, one order a report, a report repeated; then 30 orders reported at once, in any order.
    for (let i = 0; i < 30; i++) await recordFills(id, order(i));
    await recordFills(id, order(12));
    const racing = Array.from({ length: 30 }, (_, k) => recordFills(id, order(59 - k)));
    await Promise.all(racing);
    // A fill of an order reported late (before fills already counted), and a second fill of the last order.
    const late = { ...order(1)[0]!, tradeId: 'paper:late', amount: '0.05' };
    await recordFills(id, [late]);
    const figures = await recordFills(id, [
      { ...order(59)[0]!, tradeId: 'paper:last', at: new Date(START + 3_600_000 * 2) },
    ]);
    const reference = strategyMetrics([
      ...all,
      late,
      { ...order(59)[0]!, tradeId: 'paper:last', at: new Date(START + 3_600_000 * 2) },
    ]);
    assert.ok(reference.paper_trades! > 30, JSON.stringify(reference));
    assert.deepEqual(figures, reference);
    const read = await t.modules.strategies.service.get(id);
    assert.deepEqual(read.row.metrics, reference);
  });

  it('reads a few fill rows for a report, however many fills the strategy has', async () => {
    const id = await strategy();
    const { recordFills } = t.modules.strategies.userStrategies;
    const history: StrategyFill[] = [];
    for (let i = 0; i < 1_500; i++) history.push(...order(i, 'big'));
    for (let i = 0; i < history.length; i += 250) await recordFills(id, history.slice(i, i + 250));
    const next = order(1_501, 'big');
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
    assert.deepEqual(figures, strategyMetrics([...history, ...next]));
    const read = statements.reduce((sum, s) => sum + rowsRead(s.plan, 'strategy_fills'), 0);
    assert.ok(read <= 10, `fill rows read: ${read} of ${history.length + next.length}`);
  });
});
