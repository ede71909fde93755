// Binance spot orders for the Binance fake, as Binance answers them (PROTOCOLS.md B7): POST/GET/DELETE
// /api/v3/order, GET /api/v3/openOrders, fills visible in /api/v3/myTrades. A client order id is refused
// as a duplicate (-2010) only while its order is open; unknown orders are -2013 on lookup and -2011 on
// cancel; balances move (quote locked while a buy rests, commission in the asset received); LOT_SIZE,
// PRICE_FILTER and NOTIONAL/MIN_NOTIONAL refuse with -1013. The book is one price deep at the symbol's
// price: market orders and crossing limits fill there at once, others rest until `cross()`.
// Faults, one per matching request: `drop-after` (executes, then the connection is destroyed),
// `503-after` (executes, answers 503 -1007), `503-before` (answers 503 -1007, executes nothing),
// `slow-after` (executes, answers after `ms`).
import { Decimal } from 'decimal.js';
import type { BinanceFake, FakeAccount, FakeReply, FakeRequest } from './binance.ts';
import type { FakeSymbol } from './binance-market-data.ts';
import { binanceError } from './binance-shapes.ts';

export type OrderFaultKind = 'drop-after' | '503-after' | '503-before' | 'slow-after';

export interface FakeOrder {
  symbol: string;
  orderId: number;
  clientOrderId: string;
  price: string;
  origQty: string;
  executedQty: string;
  cummulativeQuoteQty: string;
  status: 'NEW' | 'PARTIALLY_FILLED' | 'FILLED' | 'CANCELED' | 'EXPIRED' | 'REJECTED';
  timeInForce: string;
  type: 'MARKET' | 'LIMIT';
  side: 'BUY' | 'SELL';
  time: number;
  updateTime: number;
  apiKey: string;
  fills: { price: string; qty: string; commission: string; commissionAsset: string; tradeId: number }[];
}

const UNKNOWN_1007 = binanceError(
  -1007,
  'Timeout waiting for response from backend server. Send status unknown; execution status unknown.',
);
const TAKER_FEE = new Decimal('0.001');

export class BinanceOrderBook {
  readonly orders: FakeOrder[] = [];
  private nextOrderId = 1000;
  private nextTradeId = 5000;
  private faults: { kind: OrderFaultKind; method: string; ms: number; apiKey?: string }[] = [];
  private hooks: { method: string; run: () => void | Promise<void> }[] = [];

  constructor(private readonly fake: BinanceFake) {}

  /**
   * The next matching request (POST place, GET lookup, DELETE cancel; of `apiKey` only, when given)
   * meets this fault.
   */
  fault(
    kind: OrderFaultKind,
    options: { method?: 'POST' | 'GET' | 'DELETE'; ms?: number; apiKey?: string } = {},
  ): this {
    this.faults.push({ kind, method: options.method ?? 'POST', ms: options.ms ?? 1000, apiKey: options.apiKey });
    return this;
  }

  /**
   * The next order request of `method` waits for `run` once the venue has received it, before it executes:
   * a test makes its fault at that moment (e.g. the app's database cut while the venue holds its order).
   */
  onNext(method: 'POST' | 'GET' | 'DELETE', run: () => void | Promise<void>): this {
    this.hooks.push({ method, run });
    return this;
  }

  /** Drops the faults not met yet (of `apiKey` only, when given). */
  clearFaults(apiKey?: string): void {
    this.faults = apiKey === undefined ? [] : this.faults.filter((f) => f.apiKey !== apiKey);
  }

  /** Orders placed for a key (every one the venue holds, whatever its status). */
  of(apiKey: string): FakeOrder[] {
    return this.orders.filter((o) => o.apiKey === apiKey);
  }

  private takeFault(method: string, apiKey: string | undefined) {
    const index = this.faults.findIndex((f) => f.method === method && (!f.apiKey || f.apiKey === apiKey));
    return index < 0 ? undefined : this.faults.splice(index, 1)[0];
  }

  /** Runs `execute` under the next fault of the method, if any. */
  private async faulted(r: FakeRequest, execute: () => FakeReply): Promise<FakeReply> {
    const hook = this.hooks.findIndex((h) => h.method === r.method);
    if (hook >= 0) await this.hooks.splice(hook, 1)[0]!.run();
    const fault = this.takeFault(r.method, r.account?.apiKey);
    if (!fault) return execute();
    if (fault.kind === '503-before') return { status: 503, body: UNKNOWN_1007 };
    const reply = execute();
    if (fault.kind === 'drop-after') return { ...reply, destroy: true };
    if (fault.kind === '503-after') return { status: 503, body: UNKNOWN_1007 };
    return { ...reply, delayMs: fault.ms };
  }

  private balance(account: FakeAccount, asset: string) {
    let row = account.balances.find((b) => b.asset === asset);
    if (!row) {
      row = { asset, free: '0', locked: '0' };
      account.balances.push(row);
    }
    return row;
  }

  private move(account: FakeAccount, asset: string, field: 'free' | 'locked', delta: Decimal): void {
    const row = this.balance(account, asset);
    row[field] = new Decimal(row[field]).plus(delta).toFixed();
  }

  /** Fills `qty` of the order at `price` (taker or maker), moving balances and recording the trade. */
  private fill(account: FakeAccount, order: FakeOrder, symbol: FakeSymbol, price: Decimal, maker: boolean): void {
    const qty = new Decimal(order.origQty).minus(order.executedQty);
    const quote = price.times(qty);
    const buy = order.side === 'BUY';
    const received = buy ? qty : quote;
    const commission = received.times(TAKER_FEE);
    const commissionAsset = buy ? symbol.base : symbol.quote;
    if (buy) {
      // A resting buy had locked its limit's quote; a taker buy pays from free.
      if (order.type === 'LIMIT' && maker) {
        this.move(account, symbol.quote, 'locked', new Decimal(order.price).times(qty).negated());
        this.move(account, symbol.quote, 'free', new Decimal(order.price).minus(price).times(qty));
      } else this.move(account, symbol.quote, 'free', quote.negated());
      this.move(account, symbol.base, 'free', qty.minus(commission));
    } else {
      this.move(account, symbol.base, maker ? 'locked' : 'free', qty.negated());
      this.move(account, symbol.quote, 'free', quote.minus(commission));
    }
    const tradeId = this.nextTradeId++;
    const now = this.fake.now();
    order.fills.push({
      price: price.toFixed(8),
      qty: qty.toFixed(8),
      commission: commission.toFixed(8),
      commissionAsset,
      tradeId,
    });
    order.executedQty = new Decimal(order.executedQty).plus(qty).toFixed(8);
    order.cummulativeQuoteQty = new Decimal(order.cummulativeQuoteQty).plus(quote).toFixed(8);
    order.status = 'FILLED';
    order.updateTime = now;
    (account.trades[order.symbol] ??= []).push({
      symbol: order.symbol,
      id: tradeId,
      orderId: order.orderId,
      orderListId: -1,
      price: price.toFixed(8),
      qty: qty.toFixed(8),
      quoteQty: quote.toFixed(8),
      commission: commission.toFixed(8),
      commissionAsset,
      time: now,
      isBuyer: buy,
      isMaker: maker,
      isBestMatch: true,
    });
  }

  /** The last price went through `price`: resting orders of the symbol that it crosses fill at their price. */
  cross(symbolName: string, price: string): number {
    const symbol = this.fake.symbols.find((s) => s.symbol === symbolName)!;
    let filled = 0;
    for (const order of this.orders) {
      if (order.symbol !== symbolName || order.status !== 'NEW') continue;
      const crosses = order.side === 'BUY' ? new Decimal(price).lte(order.price) : new Decimal(price).gte(order.price);
      if (!crosses) continue;
      this.fill(this.fake.accounts.get(order.apiKey)!, order, symbol, new Decimal(order.price), true);
      filled += 1;
    }
    return filled;
  }

  private filterFailure(symbol: FakeSymbol, qty: Decimal, price: Decimal | null): FakeReply | null {
    const refuse = (filter: string) => ({ status: 400, body: binanceError(-1013, `Filter failure: ${filter}`) });
    if (qty.lt(symbol.minQty) || qty.gt('9000') || !qty.minus(symbol.minQty).mod(symbol.stepSize).eq(0))
      return refuse('LOT_SIZE');
    if (price && !price.mod(symbol.tickSize).eq(0)) return refuse('PRICE_FILTER');
    const notional = qty.times(price ?? symbol.price);
    if (notional.lt(symbol.minNotional)) return refuse(this.fake.variant === 'us' ? 'MIN_NOTIONAL' : 'NOTIONAL');
    return null;
  }

  private place(r: FakeRequest): FakeReply {
    const account = r.account!;
    const p = r.params;
    const symbol = this.fake.symbols.find((s) => s.symbol === p.get('symbol'));
    if (!symbol) return { status: 400, body: binanceError(-1121, 'Invalid symbol.') };
    const side = p.get('side') as 'BUY' | 'SELL';
    const type = p.get('type') as 'MARKET' | 'LIMIT';
    const clientOrderId = p.get('newClientOrderId') ?? `fake-${this.nextOrderId}`;
    if (!/^[.A-Z:/a-z0-9_-]{1,36}$/.test(clientOrderId))
      return { status: 400, body: binanceError(-1100, "Illegal characters found in parameter 'newClientOrderId'.") };
    const qty = new Decimal(p.get('quantity') ?? '0');
    const price = type === 'LIMIT' ? new Decimal(p.get('price') ?? '0') : null;
    const failure = this.filterFailure(symbol, qty, price);
    if (failure) return failure;
    if (this.orders.some((o) => o.apiKey === account.apiKey && o.clientOrderId === clientOrderId && o.status === 'NEW'))
      return { status: 400, body: binanceError(-2010, 'Duplicate order sent.') };
    const market = new Decimal(symbol.price);
    const crosses = price === null || (side === 'BUY' ? price.gte(market) : price.lte(market));
    const tif = p.get('timeInForce') ?? 'GTC';
    const cost = qty.times(crosses ? market : price!);
    const have = new Decimal(this.balance(account, side === 'BUY' ? symbol.quote : symbol.base).free);
    if (have.lt(side === 'BUY' ? cost : qty))
      return { status: 400, body: binanceError(-2010, 'Account has insufficient balance for requested action.') };
    const now = this.fake.now();
    const order: FakeOrder = {
      symbol: symbol.symbol,
      orderId: this.nextOrderId++,
      clientOrderId,
      price: (price ?? new Decimal(0)).toFixed(8),
      origQty: qty.toFixed(8),
      executedQty: '0.00000000',
      cummulativeQuoteQty: '0.00000000',
      status: 'NEW',
      timeInForce: tif,
      type,
      side,
      time: now,
      updateTime: now,
      apiKey: account.apiKey,
      fills: [],
    };
    this.orders.push(order);
    if (crosses) this.fill(account, order, symbol, market, false);
    else if (tif === 'IOC' || tif === 'FOK') order.status = 'EXPIRED';
    else if (side === 'BUY') {
      this.move(account, symbol.quote, 'free', cost.negated());
      this.move(account, symbol.quote, 'locked', cost);
    } else {
      this.move(account, symbol.base, 'free', qty.negated());
      this.move(account, symbol.base, 'locked', qty);
    }
    return {
      body: {
        ...orderShape(order),
        transactTime: now,
        fills: order.fills.map((f) => ({ ...f })),
      },
    };
  }

  private find(r: FakeRequest): FakeOrder | undefined {
    const p = r.params;
    const mine = this.orders.filter((o) => o.apiKey === r.account!.apiKey && o.symbol === p.get('symbol'));
    const byId = p.get('orderId');
    const byClient = p.get('origClientOrderId');
    // Binance answers the most recent order with the client id.
    return byId
      ? mine.find((o) => String(o.orderId) === byId)
      : mine.filter((o) => o.clientOrderId === byClient).at(-1);
  }

  private cancel(r: FakeRequest): FakeReply {
    const order = this.find(r);
    if (!order || (order.status !== 'NEW' && order.status !== 'PARTIALLY_FILLED'))
      return { status: 400, body: binanceError(-2011, 'Unknown order sent.') };
    const account = r.account!;
    const symbol = this.fake.symbols.find((s) => s.symbol === order.symbol)!;
    const left = new Decimal(order.origQty).minus(order.executedQty);
    if (order.side === 'BUY') {
      const locked = left.times(order.price);
      this.move(account, symbol.quote, 'locked', locked.negated());
      this.move(account, symbol.quote, 'free', locked);
    } else {
      this.move(account, symbol.base, 'locked', left.negated());
      this.move(account, symbol.base, 'free', left);
    }
    order.status = 'CANCELED';
    order.updateTime = this.fake.now();
    return {
      body: { ...orderShape(order), origClientOrderId: order.clientOrderId, transactTime: order.updateTime },
    };
  }

  register(): this {
    const f = this.fake;
    const signedTrade = { signed: true, reads: false, weight: 1 };
    f.route('POST', '/api/v3/order', (r) => this.faulted(r, () => this.place(r)), signedTrade);
    f.route(
      'GET',
      '/api/v3/order',
      (r) =>
        this.faulted(r, () => {
          const order = this.find(r);
          if (!order) return { status: 400, body: binanceError(-2013, 'Order does not exist.') };
          return { body: { ...orderShape(order), time: order.time, updateTime: order.updateTime, isWorking: true } };
        }),
      { signed: true, weight: 4 },
    );
    f.route('DELETE', '/api/v3/order', (r) => this.faulted(r, () => this.cancel(r)), signedTrade);
    f.route(
      'GET',
      '/api/v3/openOrders',
      (r) => ({
        body: this.orders
          .filter(
            (o) =>
              o.apiKey === r.account!.apiKey &&
              (o.status === 'NEW' || o.status === 'PARTIALLY_FILLED') &&
              (!r.params.get('symbol') || o.symbol === r.params.get('symbol')),
          )
          .map((o) => ({ ...orderShape(o), time: o.time, updateTime: o.updateTime, isWorking: true })),
      }),
      { signed: true, weight: (r) => (r.params.get('symbol') ? 6 : 80) },
    );
    return this;
  }
}

function orderShape(order: FakeOrder): Record<string, unknown> {
  return {
    symbol: order.symbol,
    orderId: order.orderId,
    orderListId: -1,
    clientOrderId: order.clientOrderId,
    price: order.price,
    origQty: order.origQty,
    executedQty: order.executedQty,
    cummulativeQuoteQty: order.cummulativeQuoteQty,
    status: order.status,
    timeInForce: order.timeInForce,
    type: order.type,
    side: order.side,
    workingTime: order.time,
    selfTradePreventionMode: 'EXPIRE_MAKER',
  };
}

/** Adds Binance's order endpoints to a fake; the book is how tests inspect and move it. */
export function withOrders(fake: BinanceFake): BinanceOrderBook {
  return new BinanceOrderBook(fake).register();
}
