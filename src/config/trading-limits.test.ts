import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
}

describe('the default risk limits (TRADING_*)', () => {
  it('default to a notional, open orders, a rate and a price band, and no daily loss limit', () => {
    assert.deepEqual(loadConfig({}).trading.limitDefaults, {
      maxOrderNotional: '10000',
      maxOpenOrders: 50,
      maxOrdersPerMinute: 60,
      priceBandPercent: '10',
      dailyLossLimit: null,
    });
  });

  it('take decimals written plainly, counts, and none for no limit', () => {
    const defaults = loadConfig({
      TRADING_MAX_ORDER_NOTIONAL: '0250.500',
      TRADING_MAX_OPEN_ORDERS: 'none',
      TRADING_MAX_ORDERS_PER_MINUTE: '5',
      TRADING_PRICE_BAND_PERCENT: 'NONE',
      TRADING_DAILY_LOSS_LIMIT: '0.5',
    }).trading.limitDefaults;
    assert.deepEqual(defaults, {
      maxOrderNotional: '250.5',
      maxOpenOrders: null,
      maxOrdersPerMinute: 5,
      priceBandPercent: null,
      dailyLossLimit: '0.5',
    });
  });

  it('stop the start with one line naming each invalid one', () => {
    assert.deepEqual(
      problemsOf({
        TRADING_MAX_ORDER_NOTIONAL: '-5',
        TRADING_MAX_OPEN_ORDERS: '0',
        TRADING_MAX_ORDERS_PER_MINUTE: 'many',
        TRADING_PRICE_BAND_PERCENT: '150',
        TRADING_DAILY_LOSS_LIMIT: '0',
      }),
      [
        'TRADING_MAX_ORDER_NOTIONAL must be a decimal above 0 (at most 18 places), or none (got "-5")',
        'TRADING_MAX_OPEN_ORDERS must be an integer from 1 to 1000000 (got "0")',
        'TRADING_MAX_ORDERS_PER_MINUTE must be an integer from 1 to 1000000 (got "many")',
        'TRADING_PRICE_BAND_PERCENT must be a decimal above 0 and at most 100 (at most 18 places), or none (got "150")',
        'TRADING_DAILY_LOSS_LIMIT must be a decimal above 0 (at most 18 places), or none (got "0")',
      ],
    );
  });
});
