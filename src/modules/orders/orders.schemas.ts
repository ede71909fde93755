// Orders: requests and responses (issue 39). Decimals travel as strings, exactly as stored.
import { Type } from 'typebox';
import { DateTime, Nullable, RowOffset, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { VenueField } from '../exchange/index.ts';
import { ORDER_MODES, ORDER_SIDES, ORDER_STATUSES, ORDER_TYPES, TIME_IN_FORCE } from './orders.domain.ts';

const DecimalInput = (description: string) =>
  Type.Union([Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', maxLength: 60 }), Type.Number()], { description });
const DecimalOut = (description: string) => Type.String({ description });
const SymbolField = (description: string) => Type.String({ minLength: 1, maxLength: 40, description });

export const OrderCreateBody = Type.Object({
  exchange: VenueField(),
  symbol: SymbolField('The pair: BTC/USDT, BTCUSDT or BTC-USDT, any case.'),
  side: StringEnum(ORDER_SIDES, { description: 'buy or sell.' }),
  type: StringEnum(ORDER_TYPES, { description: 'market or limit.' }),
  amount: DecimalInput('Base units, more than 0; at least the market minimum and a multiple of its step.'),
  price: Type.Optional(Nullable(DecimalInput('Limit price in quote units; limit orders only (required there).'))),
  time_in_force: Type.Optional(StringEnum(TIME_IN_FORCE, { description: 'GTC (default), IOC or FOK.' })),
  mode: Type.Optional(StringEnum(ORDER_MODES, { description: 'paper (default) or live.' })),
  credential_id: Type.Optional(
    Nullable(Uuid("Live only: the credential that trades; default the user's active credential for the venue.")),
  ),
  strategy_id: Type.Optional(Nullable(Uuid('One of your strategies this order belongs to.'))),
});

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The same key with the same body answers the same order and sends nothing again.',
    }),
  ),
});

export const OrderFill = Type.Object({
  id: Type.String({ description: "The venue's trade id (the exchange trade's `exchange_trade_id`)." }),
  price: DecimalOut('Execution price.'),
  amount: DecimalOut('Base units filled.'),
  fee: DecimalOut('Fee charged.'),
  fee_currency: Nullable(Type.String({ description: 'Currency of the fee.' })),
  at: DateTime('When it filled.'),
});

const orderFields = {
  id: Uuid('The order.'),
  client_order_id: Type.String({ description: 'What the venue knows the order by (Binance newClientOrderId).' }),
  exchange: Type.String({ description: 'Venue id, e.g. `binance`.' }),
  symbol: Type.String({ description: 'The pair, e.g. BTC/USDT.' }),
  side: StringEnum(ORDER_SIDES, { description: 'buy or sell.' }),
  type: StringEnum(ORDER_TYPES, { description: 'market or limit.' }),
  time_in_force: StringEnum(TIME_IN_FORCE, { description: 'GTC, IOC or FOK.' }),
  mode: StringEnum(ORDER_MODES, { description: 'paper or live.' }),
  amount: DecimalOut('Base units ordered.'),
  price: Nullable(DecimalOut('Limit price; null for market orders.')),
  status: StringEnum(ORDER_STATUSES, {
    description:
      'pending (stored, not sent), unknown (sent, outcome not yet known: it is looked up, never resent), open, ' +
      'partially_filled, filled, canceled, expired or rejected.',
  }),
  filled: DecimalOut('Base units filled so far.'),
  remaining: DecimalOut('Base units not filled.'),
  average_price: Nullable(DecimalOut('Average fill price; null before any fill.')),
  cost: DecimalOut('Quote units spent or received so far.'),
  fee: DecimalOut('Fees so far.'),
  fee_currency: Nullable(Type.String({ description: 'Currency of the fees.' })),
  venue_order_id: Nullable(Type.String({ description: "The venue's order id, once it is known." })),
  strategy_id: Nullable(Uuid('The strategy it belongs to.')),
  source: Type.String({ description: 'What placed it: api, signal, strategy.' }),
  signal_hook_id: Nullable(Uuid('The signal hook whose TradingView alert placed it; null otherwise.')),
  reason: Nullable(Type.String({ description: 'Why it was rejected, expired or canceled, when known.' })),
  created_at: DateTime(),
  updated_at: DateTime(),
};

export const Order = Type.Object(orderFields);
export const OrderDetail = Type.Object({
  ...orderFields,
  fills: Type.Array(OrderFill, { description: 'Its fills, oldest first.' }),
});

export const OrderParams = Type.Object({ order_id: Uuid('The order.') });

export const OrdersQuery = Type.Object({
  mode: Type.Optional(StringEnum(ORDER_MODES, { description: 'Only paper or only live orders.' })),
  status: Type.Optional(StringEnum(ORDER_STATUSES, { description: 'Only orders in this status.' })),
  exchange: Type.Optional(VenueField()),
  symbol: Type.Optional(SymbolField('Only this pair.')),
  strategy_id: Type.Optional(Uuid('Only orders of this strategy.')),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'Rows to return, 1 to 500. Default 50.' }),
  offset: RowOffset('Rows to skip. Default 0.'),
});

export const OrderList = Type.Object({
  orders: Type.Array(Order, { description: 'Newest first.' }),
  total: Type.Integer({ description: 'Orders matching the filters.' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
});

export const CancelAllBody = Type.Object({
  exchange: Type.Optional(VenueField()),
  symbol: Type.Optional(SymbolField('Only this pair.')),
  mode: Type.Optional(StringEnum(ORDER_MODES, { description: 'Only paper or only live orders.' })),
});

export const CancelAllResult = Type.Object({
  canceled: Type.Array(Order, {
    description: 'The orders the cancel left final, as they stand now: `canceled`, or what they reached first.',
  }),
  count: Type.Integer({ description: 'How many in `canceled`.' }),
  failed: Type.Array(
    Type.Object({
      order: Order,
      detail: Type.String({ description: 'Why it is not canceled; the order stays as it stands.' }),
    }),
    { description: 'The orders whose cancel failed or got no answer from the venue; every other was still asked.' },
  ),
});
