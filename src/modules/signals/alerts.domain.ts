// What a TradingView alert says, read from either of the two forms users write (docs/decisions/220):
// a JSON object (`{"secret", "symbol", "action", ...}`) or OctoBot's `KEY=value` lines. Pure: the
// clock's time is passed in. An alert that says nothing this service can act on is a list of issues,
// each as Pydantic would word it, so the refusal names every field at once.
import type { ValidationIssue } from '../../platform/http/errors.ts';
import { unstorableValues } from '../../platform/http/unstorable-values.ts';

export const SIGNAL_MODES = ['paper', 'live'] as const;
export type SignalMode = (typeof SIGNAL_MODES)[number];

/** The largest alert body accepted; TradingView's own messages are far smaller. */
export const ALERT_BODY_LIMIT = 16 * 1024;

/** How much of the order the alert asks for: a base amount, a quote amount, or a percent of what is free. */
export type AlertSize = { amount: string } | { amountQuote: string } | { percent: string };

export interface Alert {
  secret: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  size: AlertSize;
  price: string | null;
  /** The alert's own id (`{{strategy.order.id}}`), if it sent one. */
  id: string | null;
  /** When TradingView fired it (`{{timenow}}`), if it said. */
  time: Date | null;
}

/** The order an alert asks for: what placing it reads. */
export type AlertOrder = Pick<Alert, 'symbol' | 'side' | 'type' | 'size' | 'price'>;

/**
 * What a claim keeps of its alert until its order is made (decision 1160): the order, and when the alert
 * was fired (its own time, or when it was first received if it gave none). Never the secret.
 */
export interface OwedAlert extends AlertOrder {
  firedAt: string;
}

export function owedAlert(alert: Alert, receivedAt: Date): OwedAlert {
  const { symbol, side, type, size, price } = alert;
  return { symbol, side, type, size, price, firedAt: (alert.time ?? receivedAt).toISOString() };
}

/**
 * Whether an owed alert may still be placed late: within the hook's max_lag_seconds of when it was fired,
 * the owner's own word on how late an alert's order may go (decision 1160).
 */
export function isStillOwed(owed: OwedAlert, now: Date, maxLagSeconds: number): boolean {
  return now.getTime() - Date.parse(owed.firedAt) <= maxLagSeconds * 1000;
}

/** The raw fields, whichever form they came in: names as the JSON form spells them. */
type Fields = Record<string, unknown>;

const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
const SYMBOL = /^[A-Za-z0-9]{1,20}(?:[/-][A-Za-z0-9]{1,20})?$/;
const MAX_ID = 200;

/** OctoBot's keys, as they map onto the JSON form's fields. */
const TEXT_KEYS: Record<string, string> = {
  SECRET: 'secret',
  SYMBOL: 'symbol',
  SIGNAL: 'action',
  ORDER_TYPE: 'type',
  VOLUME: 'volume',
  PRICE: 'price',
  ID: 'id',
  TIME: 'time',
};

/** `{"detail": [...]}` for a body that is neither form. */
export const notAnAlert = (input: string): ValidationIssue => ({
  type: 'json_invalid',
  loc: ['body'],
  msg: 'The body is neither a JSON object nor KEY=value lines (SECRET, SYMBOL, SIGNAL, ...)',
  input: input.length > 200 ? `${input.slice(0, 200)}…` : input,
});

/** The body's fields, or undefined when it is neither a JSON object nor `KEY=value` lines. */
export function fieldsOf(body: string): Fields | undefined {
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Fields) : undefined;
    } catch {
      return undefined;
    }
  }
  const fields: Fields = {};
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length === 0) return undefined;
  for (const line of lines) {
    const at = line.indexOf('=');
    if (at <= 0) return undefined;
    const key = line.slice(0, at).trim().toUpperCase();
    const value = line.slice(at + 1).trim();
    const field = TEXT_KEYS[key];
    // Other keys OctoBot knows (EXCHANGE, TAG, ...) say nothing this service acts on.
    if (field) fields[field] = value;
  }
  return fields;
}

/** The secret alone, to check it before anything else is read. */
export const secretOf = (fields: Fields): string | undefined =>
  typeof fields.secret === 'string' ? fields.secret : undefined;

const textOf = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value.trim()
    : typeof value === 'number' && Number.isFinite(value)
      ? String(value)
      : undefined;

/** Reads the alert's order; the issues when it says nothing this service can act on. */
export function readAlert(fields: Fields): { alert: Alert } | { issues: ValidationIssue[] } {
  const actionField = fields.action !== undefined ? 'action' : 'side';
  // The route reads its own body, so the check every other body gets (a NUL, a lone surrogate, a number
  // past finite) is made here, on every field read: the id is stored as the claim's key, and PostgreSQL
  // refuses a NUL in text. The secret is only compared, never stored.
  const issues: ValidationIssue[] = (
    ['symbol', actionField, 'type', 'volume', 'amount', 'amount_quote', 'percent', 'price', 'id', 'time'] as const
  ).flatMap((field) =>
    fields[field] === undefined ? [] : unstorableValues(fields[field], ['body', field === 'volume' ? 'VOLUME' : field]),
  );
  const issue = (field: string, type: string, msg: string, input: unknown, ctx?: Record<string, unknown>) => {
    // One issue a field: text that cannot be stored is not also read for what it says.
    if (issues.some((found) => found.loc[1] === field)) return;
    issues.push({ type, loc: ['body', field], msg, input, ...(ctx ? { ctx } : {}) });
  };

  const symbol = textOf(fields.symbol);
  if (symbol === undefined) issue('symbol', 'missing', 'Field required', null);
  else if (!SYMBOL.test(symbol))
    issue('symbol', 'string_pattern_mismatch', 'Input should be a symbol such as BTCUSDT or BTC/USDT', fields.symbol);

  const action = textOf(fields[actionField])?.toLowerCase();
  if (action === undefined) issue('action', 'missing', 'Field required', null);
  else if (action !== 'buy' && action !== 'sell')
    issue(actionField, 'enum', "Input should be 'buy' or 'sell'", fields[actionField], { expected: "'buy' or 'sell'" });

  const type = (textOf(fields.type) ?? 'market').toLowerCase();
  if (type !== 'market' && type !== 'limit')
    issue('type', 'enum', "Input should be 'market' or 'limit'", fields.type, { expected: "'market' or 'limit'" });

  const decimal = (field: string, value: unknown): string | undefined => {
    if (value === undefined || value === null || value === '') return undefined;
    const text = textOf(value);
    if (text === undefined || !DECIMAL.test(text) || Number(text) <= 0) {
      issue(field, 'greater_than', 'Input should be a decimal greater than 0', value, { gt: 0 });
      return undefined;
    }
    return text;
  };

  let size: AlertSize | undefined;
  const volume = textOf(fields.volume);
  if (volume?.endsWith('%')) {
    const percent = decimal('VOLUME', volume.slice(0, -1));
    if (percent) size = { percent };
  } else if (volume !== undefined) {
    const amount = decimal('VOLUME', volume);
    if (amount) size = { amount };
  }
  const given = (['amount', 'amount_quote', 'percent'] as const).filter(
    (field) => fields[field] !== undefined && fields[field] !== null,
  );
  if (given.length > 1)
    issue(given[1]!, 'value_error', 'Value error, give one of amount, amount_quote or percent', fields[given[1]!]);
  else if (given.length === 1) {
    const value = decimal(given[0]!, fields[given[0]!]);
    if (value)
      size =
        given[0] === 'amount'
          ? { amount: value }
          : given[0] === 'amount_quote'
            ? { amountQuote: value }
            : { percent: value };
  } else if (volume === undefined)
    issue('amount', 'missing', 'Field required: one of amount, amount_quote or percent', null);
  if (size && 'percent' in size && Number(size.percent) > 100)
    issue('percent', 'less_than_equal', 'Input should be less than or equal to 100', size.percent, { le: 100 });

  const price = decimal('price', fields.price) ?? null;
  if (type === 'limit' && price === null && fields.price === undefined)
    issue('price', 'missing', 'Field required for a limit order', null);
  if (type === 'market' && price !== null)
    issue('price', 'value_error', 'Value error, a market order takes no price', fields.price, {
      error: 'a market order takes no price',
    });

  const id = textOf(fields.id) ?? null;
  if (id !== null && (id === '' || id.length > MAX_ID))
    issue('id', 'string_too_long', `String should have 1 to ${MAX_ID} characters`, fields.id, { max_length: MAX_ID });

  let time: Date | null = null;
  const timeText = textOf(fields.time);
  if (timeText !== undefined && timeText !== '') {
    time = new Date(timeText);
    if (Number.isNaN(time.getTime())) {
      issue('time', 'datetime_parsing', 'Input should be a valid datetime, e.g. 2026-11-28T22:00:00Z', fields.time);
      time = null;
    }
  }

  if (issues.length > 0 || !symbol || !size) return { issues };
  return {
    alert: {
      secret: secretOf(fields) ?? '',
      symbol,
      side: action as Alert['side'],
      type: type as Alert['type'],
      size,
      price,
      id,
      time,
    },
  };
}

/** Whether the alert was fired more than `maxLagSeconds` away from now (either way: a clock far ahead is as suspect). */
export function isStale(time: Date | null, now: Date, maxLagSeconds: number): boolean {
  return time !== null && Math.abs(now.getTime() - time.getTime()) > maxLagSeconds * 1000;
}

/**
 * What makes two alerts the same one: its id and, when it says, its time. TradingView's
 * `{{strategy.order.id}}` repeats for every entry of a strategy ("Long"); with `{{timenow}}` beside
 * it the pair names one firing (PROTOCOLS B12). Null: the alert carries no id, nothing to dedupe on.
 */
export function alertKeyOf(alert: Pick<Alert, 'id' | 'time'>): string | null {
  if (alert.id === null) return null;
  return alert.time === null ? alert.id : `${alert.id}@${alert.time.toISOString()}`;
}

/** The configured bounds an alert's order step waits under, each for one wait (decision 710). */
export interface OrderStepBounds {
  /** One venue request: its wait for the venue budget, then its own timeout (VENUE_BUDGET_MAX_WAIT_MS + EXCHANGE_TIMEOUT_MS). */
  venueRequestMs: number;
  /** One database statement: its wait for a connection, its timeout and the client's margin past it. */
  statementMs: number;
}

/**
 * Venue requests made one after another on the longest order step (a live market order sized in quote):
 * the placer's market rules (a cold client loads the markets) and last price, the door's market rules
 * and last price, the send, and the lookup when the send's answer did not come.
 */
const STEP_VENUE_REQUESTS = 6;
/**
 * Database statements one after another on it, counted from the code and rounded up: the claim (3), the
 * owner's two-factor, the free balance, the door's key read, strategy, admission, the stored claim, the
 * answer's transaction (up to 6), the fill listeners (4), and the claim's order id.
 */
const STEP_STATEMENTS = 20;
/** Clocks of two instances apart, and an event loop late. */
const TAKE_OVER_MARGIN_MS = 60_000;

/**
 * How long after its claim a copy of an alert may still be running its order step: a claim without an
 * order id older than this was left by a copy that stopped (its process died), and a repeat may take it
 * over (decision 710).
 */
export function claimTakeOverAfterMs(bounds: OrderStepBounds): number {
  return STEP_VENUE_REQUESTS * bounds.venueRequestMs + STEP_STATEMENTS * bounds.statementMs + TAKE_OVER_MARGIN_MS;
}
