import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { holds, statusOf } from './halts.domain.ts';
import {
  checkOrder,
  dailyLossLimitOf,
  effectiveLimits,
  nextUtcDay,
  NO_LIMITS,
  normalDecimal,
  pastDailyLoss,
  patchIssues,
  type Limits,
  type OrderCandidate,
} from './limits.domain.ts';

const limits: Limits = {
  maxOrderNotional: '1000',
  maxOpenOrders: 3,
  maxOrdersPerMinute: 5,
  priceBandPercent: '5',
  dailyLossLimit: '200',
};
const order = (over: Partial<OrderCandidate> = {}): OrderCandidate => ({
  exchange: 'binance',
  symbol: 'BTC/USDT',
  side: 'buy',
  type: 'limit',
  amount: '0.01',
  price: '50000',
  lastPrice: '50000',
  notional: '500',
  ...over,
});
const calm = { openOrders: 0, ordersLastMinute: 0 };

describe('risk limit checks', () => {
  it('lets an order within every limit through', () => {
    assert.deepEqual(checkOrder(limits, order(), calm), { ok: true });
    assert.deepEqual(checkOrder(limits, order({ notional: '1000' }), calm), { ok: true }, 'at the limit is within it');
    assert.deepEqual(
      checkOrder(NO_LIMITS, order({ notional: '1e9', price: '1' }), { openOrders: 9e9, ordersLastMinute: 9e9 }),
      {
        ok: true,
      },
    );
  });

  it('refuses a market order no last price weighs under max_order_notional, and takes it without the limit', () => {
    assert.deepEqual(checkOrder(limits, order({ notional: null, price: null, lastPrice: null }), calm), {
      ok: false,
      limit: 'max_order_notional',
      detail: "No last price is known to weigh the market order's notional against max_order_notional",
    });
    assert.deepEqual(
      checkOrder({ ...limits, maxOrderNotional: null }, order({ notional: null, price: null, lastPrice: null }), calm),
      { ok: true },
    );
  });

  it('refuses a notional above max_order_notional, naming the limit', () => {
    const result = checkOrder(limits, order({ notional: '1000.01' }), calm);
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.limit === 'max_order_notional');
    assert.match(!result.ok ? result.detail : '', /1000\.01 is above max_order_notional 1000/);
  });

  it('refuses a limit price outside the band either side of the last price; market orders have no band', () => {
    assert.deepEqual(checkOrder(limits, order({ price: '52500' }), calm), { ok: true }, '5% above is within');
    assert.deepEqual(checkOrder(limits, order({ price: '47500', side: 'sell' }), calm), { ok: true });
    for (const price of ['52500.01', '47499.99']) {
      const result = checkOrder(limits, order({ price }), calm);
      assert.ok(!result.ok && result.limit === 'price_band_percent', price);
    }
    assert.deepEqual(checkOrder(limits, order({ type: 'market', price: null, lastPrice: '1' }), calm), { ok: true });
    const unknownLast = checkOrder(limits, order({ lastPrice: null }), calm);
    assert.ok(!unknownLast.ok && unknownLast.limit === 'price_band_percent', 'no last price: the band cannot hold');
  });

  it('refuses once the open orders or the orders of the last minute reach their limits', () => {
    const open = checkOrder(limits, order(), { openOrders: 3, ordersLastMinute: 0 });
    assert.ok(!open.ok && open.limit === 'max_open_orders');
    assert.deepEqual(checkOrder(limits, order(), { openOrders: 2, ordersLastMinute: 4 }), { ok: true });
    const rate = checkOrder(limits, order(), { openOrders: 0, ordersLastMinute: 5 });
    assert.ok(!rate.ok && rate.limit === 'max_orders_per_minute');
  });

  it('halts past the daily loss limit only, and ends that halt at the next UTC day', () => {
    assert.equal(pastDailyLoss(limits, '200'), false);
    assert.equal(pastDailyLoss(limits, '200.000001'), true);
    assert.equal(pastDailyLoss(limits, '-500'), false, 'a gain is no loss');
    assert.equal(pastDailyLoss(NO_LIMITS, '1e12'), false);
    assert.equal(nextUtcDay(new Date('2026-12-31T23:59:59.999Z')).toISOString(), '2027-01-01T00:00:00.000Z');
  });
});

describe('limits in force', () => {
  it('takes the tighter of the own value and the cap, null being none', () => {
    const caps: Limits = { ...NO_LIMITS, maxOrderNotional: '500', maxOpenOrders: 10, dailyLossLimit: '300' };
    assert.deepEqual(effectiveLimits(limits, caps), { ...limits, maxOrderNotional: '500' });
    assert.deepEqual(effectiveLimits(NO_LIMITS, caps), caps);
    assert.deepEqual(effectiveLimits(limits, NO_LIMITS), limits);
    assert.equal(
      effectiveLimits({ ...NO_LIMITS, maxOrderNotional: '9.5' }, { ...NO_LIMITS, maxOrderNotional: '10' })
        .maxOrderNotional,
      '9.5',
      'compared as decimals, not text',
    );
  });

  it("the daily loss limit from a fill's statement: the user's own, else the defaults, held to the cap", () => {
    const defaults = { dailyLossLimit: '200' };
    assert.equal(dailyLossLimitOf({ own: undefined, cap: null }, defaults), '200');
    assert.equal(dailyLossLimitOf({ own: null, cap: null }, defaults), null, 'the user removed their own');
    assert.equal(dailyLossLimitOf({ own: '50', cap: '300' }, defaults), '50');
    assert.equal(dailyLossLimitOf({ own: '50', cap: '9.5' }, defaults), '9.5');
    assert.equal(dailyLossLimitOf({ own: undefined, cap: '150' }, defaults), '150');
    assert.equal(dailyLossLimitOf({ own: null, cap: '150' }, defaults), '150');
  });

  it('writes decimals plainly', () => {
    assert.equal(normalDecimal('0100.500'), '100.5');
    assert.equal(normalDecimal('0.00000001'), '0.00000001');
    assert.equal(normalDecimal('123456789012345678901'), '123456789012345678901');
  });
});

describe('a change of limits', () => {
  const loc = (issues: ReturnType<typeof patchIssues>) => issues.map((issue) => [issue.loc.join('.'), issue.type]);

  it('reports every bad decimal at once, as Pydantic does', () => {
    const issues = patchIssues(
      { maxOrderNotional: '-5', priceBandPercent: '100.5', dailyLossLimit: 'ten', maxOpenOrders: 4 },
      NO_LIMITS,
    );
    assert.deepEqual(loc(issues), [
      ['body.max_order_notional', 'greater_than'],
      ['body.price_band_percent', 'less_than_equal'],
      ['body.daily_loss_limit', 'decimal_parsing'],
    ]);
    assert.deepEqual(loc(patchIssues({ maxOrderNotional: '0' }, NO_LIMITS)), [
      ['body.max_order_notional', 'greater_than'],
    ]);
    assert.deepEqual(loc(patchIssues({ maxOrderNotional: '1.0000000000000000001' }, NO_LIMITS)), [
      ['body.max_order_notional', 'decimal_max_places'],
    ]);
    assert.deepEqual(loc(patchIssues({ maxOrderNotional: '1'.repeat(21) }, NO_LIMITS)), [
      ['body.max_order_notional', 'decimal_whole_digits'],
    ]);
    for (const text of ['1e3', ' 5', '5.', '.5', '+5', '0x10', '']) {
      assert.deepEqual(
        loc(patchIssues({ dailyLossLimit: text }, NO_LIMITS)),
        [['body.daily_loss_limit', 'decimal_parsing']],
        text,
      );
    }
    assert.deepEqual(patchIssues({ priceBandPercent: '100', maxOrderNotional: null }, NO_LIMITS), []);
  });

  it('refuses a value above the cap, and accepts null (the cap then holds)', () => {
    const caps: Limits = { ...NO_LIMITS, maxOrderNotional: '500', maxOpenOrders: 10 };
    const issues = patchIssues({ maxOrderNotional: '500.01', maxOpenOrders: 11 }, caps);
    assert.deepEqual(loc(issues), [
      ['body.max_order_notional', 'less_than_equal'],
      ['body.max_open_orders', 'less_than_equal'],
    ]);
    assert.deepEqual(issues[1]!.ctx, { le: 10 });
    assert.deepEqual(patchIssues({ maxOrderNotional: '500', maxOpenOrders: null }, caps), []);
  });
});

describe('halt status', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  const own = { cause: 'user' as const, reason: 'mine', haltedAt: now, until: null };
  const loss = { cause: 'daily_loss' as const, reason: 'loss', haltedAt: now, until: new Date('2026-11-29T00:00:00Z') };

  it("names the platform's halt first, then the user's, and lets a daily-loss halt end", () => {
    assert.deepEqual(statusOf(own, { reason: 'venue down', haltedAt: now }, now), {
      halted: true,
      haltedBy: 'platform',
      reason: 'venue down',
      haltedAt: now,
      until: null,
    });
    assert.equal(statusOf(own, undefined, now).haltedBy, 'user');
    assert.equal(statusOf(loss, undefined, now).reason, 'loss');
    assert.equal(holds(loss, new Date('2026-11-29T00:00:00Z')), false);
    assert.deepEqual(statusOf(loss, undefined, new Date('2026-11-29T00:00:00Z')), {
      halted: false,
      haltedBy: null,
      reason: null,
      haltedAt: null,
      until: null,
    });
  });
});
