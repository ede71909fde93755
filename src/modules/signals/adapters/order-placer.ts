// The order placer over the orders module's create use case (docs/decisions/221): the alert's size
// becomes a base amount (sizing.domain.ts), then the order goes through the same `place` as
// `POST /api/orders` — limits, halt, live safety — marked as a signal's, its hook named, and keyed by
// the alert so that the order's own idempotency holds even if two instances race past the claim.
import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { AppError, forbidden, validationFailed } from '../../../platform/http/errors.ts';
import type { AlertSize } from '../alerts.domain.ts';
import type { OrderPlacer, SignalOrder } from '../signals.deps.ts';
import { baseAmountOf } from '../sizing.domain.ts';

/** The fields of the orders module's place input this placer fills in. */
export interface SignalPlaceInput {
  exchange: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  amount: string;
  price: string | null;
  mode: 'paper' | 'live';
}

export interface OrderPlacerDeps {
  /** The orders module's create use case; answers the order (its id) whether new or idempotent. */
  place(
    input: SignalPlaceInput,
    actor: { id: string },
    idempotencyKey: string | undefined,
    origin: { source: 'signal'; signalHookId: string },
  ): Promise<{ order: { id: string }; created: boolean }>;
  /** The user's order stored under an idempotency key, whatever body it came with. */
  keyed(userId: string, idempotencyKey: string): Promise<{ id: string } | undefined>;
  /** The market's order rules (its unified symbol and amount step), null when the venue lists none. */
  market(exchange: string, symbol: string): Promise<{ symbol: string; amountStep: number | null } | null>;
  lastPrice(exchange: string, symbol: string): Promise<number | null>;
  /** What is free of an asset in the user's paper account. */
  paperFree(userId: string, asset: string): Promise<string | null>;
  /** Whether live orders are on at all on this server (LIVE_TRADING). */
  liveTrading: boolean;
}

/** The order key's room (the orders' Idempotency-Key is at most 255 characters). */
const ORDER_KEY_MAX = 200;

/**
 * The order's idempotency key for an alert: `signal:<hook>:<alert key>`, or, when that is longer than the
 * room, the alert key's SHA-256, so that two alerts differing only at their end (a long id at another
 * time) never share one order (decision 682).
 */
export function signalOrderKey(hookId: string, alertKey: string): string {
  const plain = `signal:${hookId}:${alertKey}`;
  if (plain.length <= ORDER_KEY_MAX) return plain;
  return `signal:${hookId}:sha256:${createHash('sha256').update(alertKey, 'utf8').digest('hex')}`;
}

const sizeField = (size: AlertSize) =>
  'amount' in size ? 'amount' : 'amountQuote' in size ? 'amount_quote' : 'percent';

export function createOrderPlacer(deps: OrderPlacerDeps): OrderPlacer {
  return {
    async place(userId: string, order: SignalOrder) {
      if (order.mode === 'live' && !deps.liveTrading)
        throw forbidden('Live trading is off on this server (LIVE_TRADING is not true)');
      const key = signalOrderKey(order.hookId, order.alertKey);
      // The order the alert's key names, if one was stored, answers before the alert is sized again: a copy
      // that took over a stopped claim (decision 710), or one that claims again after a copy whose door
      // stored the order but whose claim could not record it (decision 1072). Sized again, a size in quote or
      // percent may come out otherwise now, which the door would refuse as another body under the key.
      const earlier = await deps.keyed(userId, key);
      if (earlier) return { orderId: earlier.id, created: false };
      let amount: string;
      if ('amount' in order.size) amount = new Decimal(order.size.amount).toFixed();
      else {
        const market = await deps.market(order.exchange, order.symbol);
        if (!market) throw new AppError('validation', `${order.exchange} does not list ${order.symbol} for trading`);
        const [base, quote] = market.symbol.split('/');
        // A venue that cannot answer now is its own error (503, 429), not a size without a price (422).
        const last = order.price === null ? await deps.lastPrice(order.exchange, market.symbol) : null;
        const free =
          'percent' in order.size
            ? order.mode === 'live'
              ? undefined
              : await deps.paperFree(userId, (order.side === 'buy' ? quote : base) ?? '')
            : undefined;
        if ('percent' in order.size && order.mode === 'live')
          throw validationFailed([
            {
              type: 'value_error',
              loc: ['body', 'percent'],
              msg: 'Value error, a percent size is for paper hooks; send amount or amount_quote',
              input: order.size.percent,
            },
          ]);
        const sized = baseAmountOf(order.size, {
          side: order.side,
          referencePrice: order.price ?? (last === null ? null : String(last)),
          amountStep: market.amountStep,
          free,
        });
        if ('problem' in sized)
          throw validationFailed([
            {
              type: 'value_error',
              loc: ['body', sizeField(order.size)],
              msg: `Value error, ${sized.problem}`,
              input: null,
            },
          ]);
        amount = sized.amount;
      }
      const { order: placed, created } = await deps.place(
        {
          exchange: order.exchange,
          symbol: order.symbol,
          side: order.side,
          type: order.type,
          amount,
          price: order.price,
          mode: order.mode,
        },
        { id: userId },
        key,
        { source: 'signal', signalHookId: order.hookId },
      );
      return { orderId: placed.id, created };
    },

    async placedFor(userId, hookId, alertKey) {
      return (await deps.keyed(userId, signalOrderKey(hookId, alertKey)))?.id;
    },
  };
}
