// What each venue calls the client order id and what it accepts (docs/decisions/211): the one table both
// the orders module (which derives the id) and the live venue (which sends it) read, so a new venue is
// one row here. The id is derived from the order's own id, so it is known before anything is sent.

export interface ClientOrderIdRule {
  /** The order parameter the venue reads it from, as ccxt passes it through. */
  param: string;
  /** The parameter ccxt's fetchOrder and cancelOrder look an order up by it with. */
  lookupParam: string;
  /** The longest id the venue accepts. */
  maxLength: number;
  /** Letters and digits only (OKX); otherwise the UUID's dashes may stay. */
  alphanumeric: boolean;
  /**
   * How long after a send the venue may still accept it: past this, an order it does not know never
   * reached it (Binance: the request's recvWindow, ccxt's 10 s, plus its 1 s of clock lead).
   */
  receiveWindowMs: number;
  /**
   * A venue that takes the latest time it may accept the send as a parameter (Kraken's `deadline`, RFC3339;
   * decision 1320): `aheadMs` after the order's claim, so the venue itself holds the receive window.
   */
  deadline?: { param: string; aheadMs: number };
}

const DEFAULT_RULE: ClientOrderIdRule = {
  param: 'clientOrderId',
  lookupParam: 'clientOrderId',
  maxLength: 32,
  alphanumeric: true,
  receiveWindowMs: 60_000,
};

export const CLIENT_ORDER_ID_RULES: Readonly<Record<string, ClientOrderIdRule>> = {
  // newClientOrderId: ^[.A-Z:/a-z0-9_-]{1,36}$
  binance: {
    param: 'newClientOrderId',
    lookupParam: 'origClientOrderId',
    maxLength: 36,
    alphanumeric: false,
    receiveWindowMs: 11_000,
  },
  binanceus: {
    param: 'newClientOrderId',
    lookupParam: 'origClientOrderId',
    maxLength: 36,
    alphanumeric: false,
    receiveWindowMs: 11_000,
  },
  // clOrdId: 1–32 letters and digits.
  okx: { param: 'clOrdId', lookupParam: 'clOrdId', maxLength: 32, alphanumeric: true, receiveWindowMs: 31_000 },
  // orderLinkId: up to 36 characters, unique while active.
  bybit: {
    param: 'orderLinkId',
    lookupParam: 'orderLinkId',
    maxLength: 36,
    alphanumeric: false,
    receiveWindowMs: 6_000,
  },
  // A request is valid while its token is: ccxt's expires 120 s after it is signed (plus a second of lead).
  coinbase: {
    param: 'client_order_id',
    lookupParam: 'clientOrderId',
    maxLength: 36,
    alphanumeric: false,
    receiveWindowMs: 121_000,
  },
  // Kraken signs with a nonce, not a time: the order's own `deadline` (55 s after its claim; Kraken takes
  // 2 to 60 s ahead) is the window, with 5 s for our clock running ahead of Kraken's.
  kraken: {
    param: 'cl_ord_id',
    lookupParam: 'cl_ord_id',
    maxLength: 36,
    alphanumeric: false,
    receiveWindowMs: 60_000,
    deadline: { param: 'deadline', aheadMs: 55_000 },
  },
};

export function clientOrderIdRule(venue: string): ClientOrderIdRule {
  return CLIENT_ORDER_ID_RULES[venue] ?? DEFAULT_RULE;
}

/**
 * The client order id of an order: its UUID, without dashes where the venue wants letters and digits
 * only, cut to the venue's length (a UUID's 32 hex digits fit every venue listed). Deterministic, so a
 * restarted process finds the order at the venue by it.
 */
export function clientOrderIdFor(venue: string, orderId: string): string {
  const rule = clientOrderIdRule(venue);
  const id = rule.alphanumeric || orderId.length > rule.maxLength ? orderId.replaceAll('-', '') : orderId;
  return id.slice(0, rule.maxLength);
}
