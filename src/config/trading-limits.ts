// The platform's default risk limits (TRADING_*, docs/decisions/218): what a user's limits are until
// the user changes them. `none` is no default limit. Decimals stay text, as the wire and the database
// keep them; a value that is not one stops the start with a line naming its variable.
import type { EnvReader } from './env-reader.ts';

export interface TradingLimitDefaults {
  readonly maxOrderNotional: string | null;
  readonly maxOpenOrders: number | null;
  readonly maxOrdersPerMinute: number | null;
  readonly priceBandPercent: string | null;
  readonly dailyLossLimit: string | null;
}

/** The counts' bounds as the API's; the decimals' as `limits.domain.ts` writes them. */
export const MAX_COUNT_LIMIT = 1_000_000;
const POSITIVE_DECIMAL = /^(?=.*[1-9])[0-9]{1,20}(\.[0-9]{1,18})?$/;

function decimal(env: EnvReader, name: string, fallback: string | null, max?: number): string | null {
  const raw = env.string(name);
  if (raw === undefined) return fallback;
  if (raw.toLowerCase() === 'none') return null;
  if (!POSITIVE_DECIMAL.test(raw) || (max !== undefined && Number(raw) > max)) {
    const range = max === undefined ? 'above 0' : `above 0 and at most ${max}`;
    env.problems.push(`${name} must be a decimal ${range} (at most 18 places), or none (got "${raw}")`);
    return fallback;
  }
  // Plain notation without trailing zeros, as the API answers limits.
  return raw.includes('.') ? raw.replace(/\.?0+$/, '').replace(/^0+(?=\d)/, '') : raw.replace(/^0+(?=\d)/, '');
}

function count(env: EnvReader, name: string, fallback: number | null): number | null {
  const raw = env.string(name);
  if (raw === undefined) return fallback;
  if (raw.toLowerCase() === 'none') return null;
  return env.integer(name, fallback ?? 1, 1, MAX_COUNT_LIMIT);
}

export function readTradingLimitDefaults(env: EnvReader): TradingLimitDefaults {
  return {
    maxOrderNotional: decimal(env, 'TRADING_MAX_ORDER_NOTIONAL', '10000'),
    maxOpenOrders: count(env, 'TRADING_MAX_OPEN_ORDERS', 50),
    maxOrdersPerMinute: count(env, 'TRADING_MAX_ORDERS_PER_MINUTE', 60),
    priceBandPercent: decimal(env, 'TRADING_PRICE_BAND_PERCENT', '10', 100),
    dailyLossLimit: decimal(env, 'TRADING_DAILY_LOSS_LIMIT', null),
  };
}
