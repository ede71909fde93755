// The paper engine as an order venue (docs/decisions/215): `submit` walks the venue's real book (the
// market module's, through the venue budget) with the venue's taker fee and settles in one transaction
// under the user's account lock; `lookup` answers the engine's state by client order id; `cancel`
// gives a resting order's lock back. No venue's private API is ever called.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import type {
  CancelResult,
  LookupResult,
  OrderVenue,
  PreparedOrder,
  SubmitResult,
  VenueOrderRequest,
  VenueOrderState,
} from '../../platform/order-venue.ts';
import { D, placeOrder, releaseLock, type BalanceDelta, type Book, type Execution } from './matching.domain.ts';
import { BALANCE_WHOLE_DIGITS, decimalText, overflowingAsset, PAPER_VENUES, RESTING_STATUSES } from './paper.domain.ts';
import type { BalanceChange, PaperFillRow, PaperOrderRow, PaperRepository } from './paper.repository.ts';

/** The market's pair a unified symbol names, as the engine needs it. */
export interface PaperPair {
  /** The venue's symbol (BTCUSDT). */
  symbol: string;
  base: string;
  quote: string;
}

export interface PaperMarket {
  pair(symbol: string): Promise<PaperPair | undefined>;
  book(venueSymbol: string): Promise<Book>;
}

/** A venue's fee rates as ccxt describes them; null where it says nothing (Binance's 0.1 % is used then). */
export type FeeSource = (venue: string) => Promise<{ maker: number | null; taker: number | null }>;

export interface OrderChange {
  userId: string;
  clientOrderId: string;
}

const DEFAULT_FEE_RATE = '0.001';
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const isResting = (status: string) => (RESTING_STATUSES as readonly string[]).includes(status);

/** Base/quote deltas of the matching rules as the assets of one pair. */
export function changesOf(pair: { base: string; quote: string }, deltas: readonly BalanceDelta[]): BalanceChange[] {
  return deltas
    .filter((d) => !d.free.isZero() || !d.locked.isZero())
    .map((d) => ({
      asset: d.asset === 'base' ? pair.base : pair.quote,
      free: d.free.toFixed(),
      locked: d.locked.toFixed(),
    }));
}

export function fillRows(
  orderId: string,
  pair: { base: string; quote: string },
  executions: readonly Execution[],
  at: Date,
) {
  return executions.map((e) => ({
    tradeId: `paper:${randomUUID()}`,
    orderId,
    price: e.price.toFixed(),
    amount: e.amount.toFixed(),
    fee: e.fee.toFixed(),
    feeCurrency: e.feeIn === 'base' ? pair.base : pair.quote,
    maker: e.maker,
    at,
  }));
}

/** The engine's view of one order, in the venue interface's terms. */
export function stateOf(
  row: Pick<PaperOrderRow, 'id' | 'status' | 'filled' | 'reason'>,
  fills: readonly PaperFillRow[],
): VenueOrderState {
  const filled = fills.reduce((sum, f) => sum.plus(f.amount), new D(0));
  const value = fills.reduce((sum, f) => sum.plus(new D(f.price).times(f.amount)), new D(0));
  return {
    venueOrderId: row.id,
    status: row.status,
    filled: decimalText(row.filled),
    averagePrice: filled.isZero() ? null : decimalText(value.div(filled).toDecimalPlaces(18)),
    fills: fills.map((f) => ({
      tradeId: f.tradeId,
      price: decimalText(f.price),
      amount: decimalText(f.amount),
      fee: decimalText(f.fee),
      feeCurrency: f.feeCurrency,
      at: f.at,
      maker: f.maker,
    })),
    ...(row.reason ? { reason: row.reason } : {}),
  };
}

export function createPaperVenue(deps: {
  db: Db;
  repo: PaperRepository;
  clock: Clock;
  market: PaperMarket;
  fees: FeeSource;
  startBalances: Readonly<Record<string, string>>;
  /** Told of each order left resting, so the price watch follows its symbol at once. */
  rested(venueSymbol: string): void;
}): OrderVenue {
  const { db, repo, clock, market } = deps;

  async function stateFor(row: PaperOrderRow, executor: DbExecutor = db): Promise<VenueOrderState> {
    return stateOf(row, await repo.fillsOf(row.id, executor));
  }

  async function feeRates(venue: string) {
    const rates = await deps.fees(venue);
    const rate = (value: number | null) => new D(value === null ? DEFAULT_FEE_RATE : String(value));
    return { maker: rate(rates.maker), taker: rate(rates.taker) };
  }

  type Prepared = { kind: 'refused'; reason: string } | PreparedOrder;

  /**
   * Reads what a settlement needs, outside any transaction: a venue call never holds the account lock.
   * Until the settlement starts nothing is stored, so a failure here is a refusal, not an unknown outcome.
   */
  async function prepare(order: VenueOrderRequest): Promise<Prepared> {
    if (!(PAPER_VENUES as readonly string[]).includes(order.exchange))
      return {
        kind: 'refused',
        reason: `Paper trading walks the ${PAPER_VENUES.join(', ')} book, not ${order.exchange}.`,
      };
    let prepared: [PaperPair, Book, Awaited<ReturnType<typeof feeRates>>];
    try {
      // The fee rates first, alone: they ask no venue, but a process's first read loads the venue library,
      // seconds of one busy machine's CPU in one block, which would run out the bound of a market read in
      // flight beside it; read before them, the load is over when their bounds start (decision 700).
      const rates = await feeRates(order.exchange);
      const pair = await market.pair(order.symbol);
      if (!pair) return { kind: 'refused', reason: `Unknown symbol: ${order.symbol}` };
      prepared = [pair, await market.book(pair.symbol), rates];
    } catch (error) {
      return { kind: 'refused', reason: `The venue's book could not be read: ${messageOf(error)}` };
    }
    const [pair, book, fees] = prepared;
    return {
      kind: 'ready',
      settle: (tx) => settle(order, pair, book, fees, tx),
      // The price watch follows the symbol of an order left resting, at once.
      settled: (result) => {
        if (result.kind === 'accepted' && isResting(result.state.status)) deps.rested(pair.symbol);
      },
    };
  }

  /** Settles the order in the caller's transaction, under the user's account lock. */
  async function settle(
    order: VenueOrderRequest,
    pair: PaperPair,
    book: Book,
    fees: Awaited<ReturnType<typeof feeRates>>,
    tx: DbExecutor,
  ): Promise<Exclude<SubmitResult, { kind: 'unknown' }>> {
    const now = clock.now();
    // The account exists but for a user's first order: lock it, open it only when the lock finds none.
    let balances = await repo.lockedBalances(order.userId, tx);
    if (!balances) {
      await repo.ensureAccount(order.userId, deps.startBalances, now, tx);
      balances = (await repo.lockedBalances(order.userId, tx)) ?? [];
    }
    const held = new Map(balances.map((b) => [b.asset, new D(b.free)]));
    const placement = placeOrder(
      {
        side: order.side,
        type: order.type,
        timeInForce: order.timeInForce,
        amount: new D(order.amount),
        price: order.price === null ? null : new D(order.price),
      },
      book,
      fees,
      { base: held.get(pair.base) ?? new D(0), quote: held.get(pair.quote) ?? new D(0) },
    );
    if (placement.kind === 'refused') return placement;
    // Past what a balance column holds the write would fail (a 500): refused, as the venue refuses an order
    // its account cannot hold, counting what a resting remainder receives once it fills (decision 832).
    const changes = changesOf(pair, placement.deltas);
    const limit = order.price === null ? null : new D(order.price);
    const eventual =
      placement.resting.isZero() || limit === null
        ? []
        : order.side === 'buy'
          ? [{ asset: pair.base, free: placement.resting.toFixed(), locked: '0' }]
          : [{ asset: pair.quote, free: placement.resting.times(limit).toFixed(), locked: '0' }];
    const overflowing = overflowingAsset(balances, [...changes, ...eventual]);
    if (overflowing)
      return {
        kind: 'refused',
        reason: `The paper balance of ${overflowing} would reach 10^${BALANCE_WHOLE_DIGITS}, more than a balance holds.`,
      };
    const filled = placement.executions.reduce((sum, e) => sum.plus(e.amount), new D(0));
    const id = randomUUID();
    // A second submit of the same client order id answers the first one, never a second fill: the
    // unique client order id refuses the row, and with it every fill and balance change of the statement.
    const settled = await repo.insertSettled(
      {
        id,
        userId: order.userId,
        clientOrderId: order.clientOrderId,
        exchange: order.exchange,
        symbol: order.symbol,
        venueSymbol: pair.symbol,
        base: pair.base,
        quote: pair.quote,
        side: order.side,
        type: order.type,
        timeInForce: order.timeInForce,
        amount: order.amount,
        price: order.price,
        filled: filled.toFixed(),
        status: placement.status,
        makerFee: fees.maker.toFixed(),
        reason: placement.reason ?? null,
        createdAt: now,
        updatedAt: now,
      },
      fillRows(id, pair, placement.executions, now),
      changes,
      new Set(balances.map((b) => b.asset)),
      tx,
    );
    if (!settled) {
      const first = await repo.findOrder(order.userId, order.clientOrderId, tx);
      return { kind: 'accepted', state: await stateFor(first!, tx) };
    }
    // A new order's fills are the ones just written: no read back.
    return { kind: 'accepted', state: stateOf(settled.order, settled.fills) };
  }

  async function place(order: VenueOrderRequest): Promise<SubmitResult> {
    const prepared = await prepare(order);
    if (prepared.kind === 'refused') return prepared;
    const result = await db.transaction((tx) => prepared.settle(tx));
    prepared.settled(result);
    return result;
  }

  return {
    async submit(order) {
      let result: SubmitResult;
      try {
        result = await place(order);
      } catch (error) {
        // The book could not be read, or the database failed: whether anything was stored is for lookup to say.
        return { kind: 'unknown', reason: messageOf(error) };
      }
      return result;
    },

    inProcess: { prepare },

    async lookup(order): Promise<LookupResult> {
      try {
        const row = await repo.findOrder(order.userId, order.clientOrderId);
        return row ? { kind: 'found', state: await stateFor(row) } : { kind: 'not_found' };
      } catch (error) {
        return { kind: 'unknown', reason: messageOf(error) };
      }
    },

    async cancel(order): Promise<CancelResult> {
      try {
        return await db.transaction(async (tx): Promise<CancelResult> => {
          await repo.lockAccount(order.userId, tx);
          const row = await repo.findOrder(order.userId, order.clientOrderId, tx);
          if (!row) return { kind: 'not_found' };
          if (isResting(row.status)) {
            const now = clock.now();
            const left = new D(row.amount).minus(row.filled);
            await repo.moveResting(row.id, row.filled, { status: 'canceled', filled: row.filled, at: now }, tx);
            await repo.applyChanges(
              row.userId,
              changesOf(row, [releaseLock(row.side, left, new D(row.price!))]),
              now,
              tx,
            );
            const moved = await repo.findOrder(order.userId, order.clientOrderId, tx);
            return { kind: 'done', state: await stateFor(moved!, tx) };
          }
          return { kind: 'done', state: await stateFor(row, tx) };
        });
      } catch (error) {
        return { kind: 'unknown', reason: messageOf(error) };
      }
    },
  };
}
