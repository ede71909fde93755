// The orders use cases: place (validated against the venue's own limits before anything is sent, stored
// with its client order id, then sent once), list, read, cancel and cancel-all. The state machine
// itself is order-execution.service.ts.
import { createHash, randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { Logger } from 'pino';
import type { Actor } from '../../platform/auth/actor.ts';
import { clientOrderIdFor } from '../../platform/client-order-ids.ts';
import type { Clock } from '../../platform/clock.ts';
import {
  AppError,
  conflict,
  forbidden,
  notFound,
  unavailable,
  validationFailed,
  type ValidationIssue,
} from '../../platform/http/errors.ts';
import type { OrderMode, OrderSide, OrderType, TimeInForce } from '../../platform/order-venue.ts';
import { isVenue } from '../exchange/index.ts';
import { type CancelAllBounds, type CancelAllResult, cancelEach } from './cancel-all.service.ts';
import type { OrdersDeps } from './orders.deps.ts';
import { checkMarketRules, isFinal, notionalTooLarge, ORDER_WHOLE_DIGITS, storableIssue } from './orders.domain.ts';
import type { OrderExecution } from './order-execution.service.ts';
import { orderCountsJoin, type OrderFilter } from './order-queries.repository.ts';
import type { OrdersRepository } from './orders.repository.ts';
import type { FillRow, OrderRow } from './orders.rows.ts';

export interface PlaceInput {
  exchange: string;
  symbol: string;
  side: OrderSide;
  type: OrderType;
  amount: string | number;
  price?: string | number | null;
  time_in_force?: TimeInForce;
  mode?: OrderMode;
  credential_id?: string | null;
  strategy_id?: string | null;
}

const LAST_PRICE_TTL_MS = 2_000;

/** The unified symbol: BTCUSDT, btc-usdt and BTC/USDT are BTC/USDT (the venue's market list decides). */
const unified = (symbol: string) => symbol.trim().toUpperCase().replace('-', '/');

/** The body's fields that make the order, in a fixed order, for the idempotency comparison. */
function fingerprint(input: PlaceInput): string {
  const canonical = {
    exchange: input.exchange,
    symbol: unified(input.symbol),
    side: input.side,
    type: input.type,
    amount: new Decimal(input.amount).toFixed(),
    price: input.price === undefined || input.price === null ? null : new Decimal(input.price).toFixed(),
    time_in_force: input.time_in_force ?? 'GTC',
    mode: input.mode ?? 'paper',
    credential_id: input.credential_id ?? null,
    strategy_id: input.strategy_id ?? null,
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

export function createOrdersService(deps: {
  repo: OrdersRepository;
  execution: OrderExecution;
  exchange: OrdersDeps['exchange']['orders'];
  controls: Pick<OrdersDeps['controls'], 'admit' | 'status'>;
  strategies: Pick<OrdersDeps['strategies'], 'isOwnedBy'>;
  /** Offline, where paper orders find their market and last price (the simulated source); null otherwise. */
  paperMarket: OrdersDeps['paper']['offlineMarket'];
  clock: Clock;
  logger: Pick<Logger, 'warn'>;
  /** How many cancels cancel-all runs at once, and how long it starts new ones (decision 913). */
  cancelAll: CancelAllBounds;
  /** Makes the user's daily loss checks owed (decision 1030): a halt they find holds for the order that waits. */
  settleDailyLoss(userId: string): Promise<void>;
  /** LIVE_TRADING: off, the door itself refuses every live order, whoever calls it (DESIGN §9). */
  liveTrading: boolean;
}) {
  const { repo, execution, exchange, controls, clock } = deps;
  /** Last prices, kept for a moment: the notional and price-band checks need no fresher figure. */
  const lastPrices = new Map<string, { price: Promise<number | null>; at: number }>();
  function latestPrice(venue: Parameters<typeof exchange.lastPrice>[0], symbol: string): Promise<number | null> {
    const key = `${venue} ${symbol}`;
    const now = Date.now();
    const cached = lastPrices.get(key);
    if (cached && now - cached.at < LAST_PRICE_TTL_MS) return cached.price;
    const price = exchange.lastPrice(venue, symbol).catch(() => null);
    lastPrices.set(key, { price, at: now });
    if (lastPrices.size > 10_000) lastPrices.delete(lastPrices.keys().next().value!);
    return price;
  }

  /** Every field the request gets wrong by itself, before the venue's limits are asked. */
  function shapeIssues(input: PlaceInput): ValidationIssue[] {
    const issues: ValidationIssue[] = [];
    const amount = new Decimal(input.amount);
    if (amount.lte(0))
      issues.push({
        type: 'greater_than',
        loc: ['body', 'amount'],
        msg: 'Input should be greater than 0',
        input: input.amount,
        ctx: { gt: 0 },
      });
    // Past numeric(38,18) the insert fails: a 422 naming the field, never a 500 (decision 770).
    const bounded = (field: 'amount' | 'price', value: string | number) => {
      const issue = storableIssue(new Decimal(value));
      if (issue) issues.push({ ...issue, loc: ['body', field], input: value });
    };
    if (amount.gt(0)) bounded('amount', input.amount);
    const price = input.price ?? null;
    if (price !== null && new Decimal(price).gt(0)) bounded('price', price);
    if (input.type === 'limit' && price === null)
      issues.push({ type: 'missing', loc: ['body', 'price'], msg: 'Field required for a limit order', input: null });
    if (input.type === 'market' && price !== null)
      issues.push({
        type: 'value_error',
        loc: ['body', 'price'],
        msg: 'Value error, a market order takes no price',
        input: price,
        ctx: { error: 'a market order takes no price' },
      });
    if (price !== null && new Decimal(price).lte(0))
      issues.push({
        type: 'greater_than',
        loc: ['body', 'price'],
        msg: 'Input should be greater than 0',
        input: price,
        ctx: { gt: 0 },
      });
    if (input.mode !== 'live' && input.credential_id)
      issues.push({
        type: 'value_error',
        loc: ['body', 'credential_id'],
        msg: 'Value error, only live orders trade with a credential',
        input: input.credential_id,
        ctx: { error: 'only live orders trade with a credential' },
      });
    return issues;
  }

  const fieldError = (field: string, msg: string, input: unknown) =>
    validationFailed([
      { type: 'value_error', loc: ['body', field], msg: `Value error, ${msg}`, input, ctx: { error: msg } },
    ]);

  /**
   * An order the gate admitted just before a halt committed may be stored after the halt's cancel-all read the
   * open orders, and would be left open under the halt: one left not final is looked at again once stored
   * (after that read began, this read sees the halt) and canceled if a halt now holds (decision 771).
   */
  async function closedIfHalted(order: OrderRow): Promise<OrderRow> {
    if (isFinal(order.status)) return order;
    try {
      if (!(await controls.status(order.userId)).halted) return order;
      return await execution.cancel(order, { actorId: null, actorType: 'system' });
    } catch (error) {
      // The order is stored (and, live, sent): it is answered as it stands, never as an error that invites a
      // resend. The reconcile pass cancels an order left open under a halt (decision 830).
      deps.logger.warn(
        { err: error, orderId: order.id },
        'an order placed could not be checked against a halt: the reconcile pass closes it if one holds',
      );
      return order;
    }
  }

  async function idempotent(userId: string, key: string, hash: string): Promise<OrderRow | undefined> {
    const earlier = await repo.byIdempotencyKey(userId, key);
    if (!earlier) return undefined;
    if (earlier.requestHash !== hash)
      throw conflict('This Idempotency-Key was used with another request body; use a new key for a new order');
    return earlier;
  }

  return {
    /** Places an order; `created` is false when the idempotency key answered an earlier one. */
    async place(
      input: PlaceInput,
      actor: Actor,
      idempotencyKey?: string,
      /** What placed it: the API (default), or a signal hook's alert (decision 221). */
      origin: { source: 'api' | 'signal'; signalHookId?: string } = { source: 'api' },
    ): Promise<{ order: OrderRow; created: boolean }> {
      const userId = actor.id;
      const issues = shapeIssues(input);
      if (issues.length > 0) throw validationFailed(issues);
      const hash = fingerprint(input);
      if (idempotencyKey) {
        const earlier = await idempotent(userId, idempotencyKey, hash);
        if (earlier) return { order: earlier, created: false };
      }
      const mode = input.mode ?? 'paper';
      // The door's own checks, whatever its caller checked before: a route, a signal hook (decision 1130).
      if (mode === 'live' && !deps.liveTrading)
        throw forbidden('Live trading is off on this server (LIVE_TRADING is not true)');
      if (!isVenue(input.exchange)) throw fieldError('exchange', 'not a venue this service trades on', input.exchange);
      const venue = execution.venueOf(mode);
      if (!venue) throw unavailable(`${mode} trading is not available now`);
      const venueId = input.exchange;
      if (input.strategy_id && !(await deps.strategies.isOwnedBy(input.strategy_id, userId)))
        throw fieldError('strategy_id', 'no strategy of yours has this id', input.strategy_id);
      // Paper orders offline never ask the venue: the simulated source is their market (decision 262).
      const offline = mode === 'paper' ? deps.paperMarket : null;
      const market = offline ? await offline.market(input.symbol) : await exchange.market(venueId, input.symbol);
      if (!market?.active)
        throw fieldError('symbol', `${input.exchange} does not list ${input.symbol} for trading`, input.symbol);
      const amount = new Decimal(input.amount).toFixed();
      const price = input.price === undefined || input.price === null ? null : new Decimal(input.price).toFixed();
      const lastNumber = offline ? await offline.lastPrice(market.symbol) : await latestPrice(venueId, market.symbol);
      const lastPrice = lastNumber === null ? null : new Decimal(lastNumber).toFixed();
      const violation = checkMarketRules(market, { amount, price, referencePrice: lastPrice });
      if (violation)
        throw fieldError(violation.field, violation.msg, violation.field === 'price' ? input.price : input.amount);
      if (notionalTooLarge(amount, price ?? lastPrice))
        throw fieldError(
          'amount',
          `amount × price is above the largest notional an order holds (10^${ORDER_WHOLE_DIGITS})`,
          input.amount,
        );
      // A halt refuses after it has canceled; the limits are checked before anything is stored or sent.
      // Halts, limits, the user's counts and a live order's credential: one statement (decisions 271, 501, 650).
      const now = clock.now();
      const reference = price ?? lastPrice;
      // What the order is, as the risk check weighs it and the audit entry records it.
      const fields = {
        exchange: input.exchange,
        symbol: market.symbol,
        side: input.side,
        type: input.type,
        amount,
        price,
      };
      const admit = async () => {
        const counts = orderCountsJoin(new Date(now.getTime() - 60_000));
        const admitted = await controls.admit(
          userId,
          {
            ...fields,
            lastPrice,
            notional: reference === null ? null : new Decimal(amount).times(reference).toFixed(),
          },
          counts,
          // A credential that cannot trade answers first, before a halt or a limit (decision 460).
          mode === 'live'
            ? exchange.credentialJoin(venueId, input.credential_id ?? undefined, 2 + counts.params.length)
            : undefined,
        );
        return { admitted, owed: counts.owed() };
      };
      const first = await admit();
      let admission = first.admitted;
      // A daily loss check still owed (a fill's check in progress, or one a stopped process left): made first,
      // and the order admitted again, so that the halt it finds refuses this order (decision 1030).
      if (admission.ok && first.owed) {
        await deps.settleDailyLoss(userId);
        admission = (await admit()).admitted;
      }
      const credential = admission.beside ?? null;
      if (!admission.ok) {
        if ('halted' in admission)
          throw new AppError('locked', `Trading is halted: ${admission.halted.reason ?? 'no reason given'}`);
        throw forbidden(`Refused by your risk limit ${admission.limit}: ${admission.detail}`);
      }

      const id = randomUUID();
      const order = {
        id,
        userId,
        clientOrderId: clientOrderIdFor(input.exchange, id),
        exchange: input.exchange,
        symbol: market.symbol,
        side: input.side,
        type: input.type,
        timeInForce: input.time_in_force ?? 'GTC',
        mode,
        amount,
        price,
        status: 'pending' as const,
        credentialId: credential?.id ?? null,
        strategyId: input.strategy_id ?? null,
        source: origin.source,
        signalHookId: origin.signalHookId ?? null,
        idempotencyKey: idempotencyKey ?? null,
        requestHash: idempotencyKey ? hash : null,
        createdAt: now,
        updatedAt: now,
      };
      const placed = {
        actorId: userId,
        actorType: 'user' as const,
        action: 'order.place' as const,
        subjectUserId: userId,
        targetType: 'order',
        targetId: id,
        details: { ...fields, mode },
        ip: actor.ip ?? null,
      };
      const mover = { actorId: userId, actorType: 'user' as const, ip: actor.ip };
      // Another request with the same key stored its order between our read and our insert.
      const earlierOrConflict = async () => {
        const earlier = await idempotent(userId, idempotencyKey!, hash);
        if (!earlier) throw new AppError('conflict', 'The order could not be stored; try again');
        return { order: earlier, created: false };
      };
      // Nothing leaves the process for the paper engine: one transaction (decision 270).
      if (venue.inProcess) {
        const done = await execution.placeInProcess(order, placed, { inProcess: venue.inProcess }, mover);
        return done === 'idempotency_taken'
          ? earlierOrConflict()
          : { order: await closedIfHalted(done), created: true };
      }
      const claimed = await execution.storeClaimed(order, placed, mover);
      if (claimed === 'idempotency_taken') return earlierOrConflict();
      const sent = await execution.sendClaimed(claimed, venue, mover, credential ?? undefined);
      return { order: await closedIfHalted(sent), created: true };
    },

    /**
     * The user's order an idempotency key names, whatever body it came with: for a caller whose key names
     * one request of its own (an alert's, decision 710) that asks after it without placing again.
     */
    keyed(userId: string, idempotencyKey: string): Promise<OrderRow | undefined> {
      return repo.byIdempotencyKey(userId, idempotencyKey);
    },

    async list(filter: OrderFilter, limit: number, offset: number) {
      const page = await repo.list(
        { ...filter, symbol: filter.symbol ? unified(filter.symbol) : undefined },
        limit,
        offset,
      );
      return { ...page, limit, offset };
    },

    async get(userId: string, id: string): Promise<{ order: OrderRow; fills: FillRow[] }> {
      const order = await repo.owned(userId, id);
      if (!order) throw notFound('Order not found');
      return { order, fills: await repo.fills(id) };
    },

    /** Cancels at the venue (live) or the engine (paper); an order already final is a 409. */
    async cancel(userId: string, id: string, actor: Actor): Promise<OrderRow> {
      const order = await repo.owned(userId, id);
      if (!order) throw notFound('Order not found');
      if (isFinal(order.status)) throw conflict(`The order is already ${order.status}`);
      return execution.cancel(order, { actorId: actor.id, actorType: 'user', ip: actor.ip });
    },

    /**
     * Asks every order of the filter to cancel, a few at a time within a deadline, whatever the others'
     * cancels did: those it left final (`canceled`, or what they reached first), and those it could not or
     * did not ask in time (`failed`, as they stand, with why) (decisions 831, 913).
     */
    async cancelAll(filter: OrderFilter, actor: Actor): Promise<CancelAllResult> {
      const open = await repo.notFinalOf({ ...filter, symbol: filter.symbol ? unified(filter.symbol) : undefined });
      const mover = { actorId: actor.id, actorType: 'user', ip: actor.ip } as const;
      return cancelEach(
        open,
        (order) => execution.cancel(order, mover),
        deps.cancelAll,
        (error, order) => deps.logger.warn({ err: error, orderId: order.id }, 'cancel-all could not cancel an order'),
      );
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
