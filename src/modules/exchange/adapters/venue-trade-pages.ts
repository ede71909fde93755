// The oldest trades of a market from an instant on, on venues that answer fills newest first
// (Kraken, OKX, Bybit, Coinbase). ccxt asks for one page; a page "from `since`" is then the newest
// page of everything after it, and continuing from its newest trade would skip the rest. So each
// venue's own paging walks the window [since, now] from its newest end to its oldest, and the oldest
// `limit` trades are kept (decision 206). A window holding many more trades than needed is halved
// until its walk is short; Bybit answers at most 7 days per call, so its windows move forward a week
// at a time until one holds trades.
import type { Exchange, Trade } from 'ccxt';
import type { Venue } from '../venues.domain.ts';
import { VenueError } from './venue-gateway.ts';

export interface Page {
  trades: Trade[];
  /** Where the next (older) page of the same window starts; undefined when this was the last. */
  next?: string;
}

export interface Pager {
  /** Pages come oldest first: the walk may stop once it holds `limit` trades. */
  oldestFirst?: boolean;
  /** Least time between two calls of one walk: the venue's per-key limit of that endpoint. */
  spacingMs?: number;
  /** Longest window one call may ask for (Bybit: 7 days). */
  maxSpanMs?: number;
  fetch(from: number, to: number, cursor: string | undefined): Promise<Page>;
}

const WEEK_MS = 7 * 86_400_000;
/** Calls one market's page may cost at most; a year of empty Bybit weeks is 53. */
const MAX_CALLS = 80;

type Json = Record<string, unknown> | undefined;

function lastJson(exchange: Exchange): Json {
  return (exchange as unknown as { last_json_response?: Json }).last_json_response;
}

function pager(venue: Venue, exchange: Exchange, symbol: string): Pager {
  const trades = (since: number, params: Record<string, unknown>) =>
    exchange.fetchMyTrades(symbol, since, undefined, params);
  switch (venue) {
    case 'kraken':
      // TradesHistory: 50 a page over every pair, newest first, with the window's `count`; `ofs`
      // into it and `end` (inclusive seconds) holding the window still while trades arrive. The
      // first call tells the count; the walk then starts at the oldest page and moves to newer ones
      // (ccxt keeps the market's own trades of each).
      return {
        oldestFirst: true,
        async fetch(from, to, cursor) {
          const end = Math.ceil(to / 1000);
          // Kraken's `start` is exclusive (seconds) and ccxt sends since / 1000: a trade at exactly the
          // window's first second would be left out, so the second before it is asked from (decision 891).
          const start = Math.ceil(from / 1000) - 1;
          let ofs = Number(cursor ?? 0);
          let page = await trades(from, { start, end, ofs });
          if (cursor === undefined) {
            const count = Number((lastJson(exchange)?.result as Json)?.count ?? 0);
            if (count <= 50) return { trades: page };
            ofs = count - 50;
            page = await trades(from, { start, end, ofs });
          }
          return { trades: page, next: ofs > 0 ? String(Math.max(0, ofs - 50)) : undefined };
        },
      };
    case 'okx':
      // trade/fills-history: 100 a page, `after` = the oldest bill of the page for the next one; 10
      // calls per 2 s per key.
      return {
        spacingMs: 250,
        async fetch(from, to, cursor) {
          const page = await trades(from, { end: to, limit: 100, ...(cursor ? { after: cursor } : {}) });
          const rows = (lastJson(exchange)?.data as Record<string, unknown>[] | undefined) ?? [];
          const oldest = rows.at(-1)?.billId;
          return { trades: page, next: rows.length >= 100 && typeof oldest === 'string' ? oldest : undefined };
        },
      };
    case 'bybit':
      // execution/list: 100 a page within at most 7 days, `nextPageCursor` for the next.
      return {
        maxSpanMs: WEEK_MS,
        async fetch(from, to, cursor) {
          const page = await trades(from, { endTime: to, limit: 100, ...(cursor ? { cursor } : {}) });
          await bybitPace(exchange);
          const next = (lastJson(exchange)?.result as Json)?.nextPageCursor;
          return { trades: page, next: typeof next === 'string' && next !== '' ? next : undefined };
        },
      };
    case 'coinbase':
      // orders/historical/fills: `cursor` for the next page, empty on the last; 30 private calls a
      // second per key.
      return {
        spacingMs: 40,
        async fetch(from, to, cursor) {
          const params = {
            end_sequence_timestamp: new Date(to).toISOString(),
            limit: 100,
            ...(cursor ? { cursor } : {}),
          };
          const page = await trades(from, params);
          const next = lastJson(exchange)?.cursor;
          return { trades: page, next: typeof next === 'string' && next !== '' ? next : undefined };
        },
      };
    default:
      throw new VenueError(venue, 'not_supported', `${venue} trade history is not supported`);
  }
}

/**
 * Bybit counts each UID's calls per endpoint and second and says so on every answer
 * (X-Bapi-Limit-Status: calls left, X-Bapi-Limit-Reset-Timestamp): with none left, the walk waits
 * for the reset instead of provoking 10006 (a year of empty weeks is 53 calls).
 */
async function bybitPace(exchange: Exchange): Promise<void> {
  const headers = (exchange.last_response_headers ?? {}) as Record<string, string>;
  const header = (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  const left = Number(header('x-bapi-limit-status'));
  const reset = Number(header('x-bapi-limit-reset-timestamp'));
  if (!Number.isFinite(left) || left > 1 || !Number.isFinite(reset)) return;
  const wait = Math.min(1_500, Math.max(0, reset - Date.now()));
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** When each key last asked its trade history, in this process (the walks of one key follow each other). */
const lastCalls = new Map<string, number>();

/** Waits until `spacingMs` has passed since the key's last history call, then counts this one. */
async function spaced(key: string, spacingMs: number): Promise<void> {
  const wait = (lastCalls.get(key) ?? 0) + spacingMs - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  lastCalls.set(key, Date.now());
  // Old keys are forgotten once their spacing has long passed.
  if (lastCalls.size > 10_000) for (const [k, at] of lastCalls) if (Date.now() - at > 60_000) lastCalls.delete(k);
}

/** Whether `oldestTrades` pages this venue (the Binance venues continue by trade id instead). */
export function pagesNewestFirst(venue: Venue): boolean {
  return venue === 'kraken' || venue === 'okx' || venue === 'bybit' || venue === 'coinbase';
}

/**
 * The oldest `limit` trades of `symbol` at or after `since` (up to `now`), oldest first, each once,
 * leaving out the `known` ones (stored already: they count toward nothing, decision 891).
 * Never skips: a trade is left out only when `limit` older ones were returned.
 */
export async function oldestTrades(
  venue: Venue,
  exchange: Exchange,
  symbol: string,
  since: number,
  limit: number,
  now: number,
  known: readonly string[] = [],
): Promise<Trade[]> {
  const source = pager(venue, exchange, symbol);
  const { spacingMs } = source;
  const paced: Pager = spacingMs
    ? {
        ...source,
        async fetch(from, to, cursor) {
          await spaced(`${venue}:${exchange.apiKey}`, spacingMs);
          return source.fetch(from, to, cursor);
        },
      }
    : source;
  return walkOldest(venue, paced, since, limit, now, known);
}

/**
 * `oldestTrades` over any pager: windows [from, to] follow each other without overlap, each walked
 * whole from its newest page (or its oldest, where the venue starts there), each adding its trades.
 * A walk that has seen `enough` trades with more pages to go is cut and its window halved; the span
 * it saw (from its oldest trade to its newest: at least `enough` trades) is kept, and a later window
 * that would hold it all is halved before it is asked (decision 1230). A backlog that starts
 * late in a long window is so found in one call per halving, not in a new walk of its newest pages.
 */
export async function walkOldest(
  venue: Venue,
  source: Pager,
  since: number,
  limit: number,
  now: number,
  known: readonly string[] = [],
): Promise<Trade[]> {
  const skip = new Set(known);
  // Walking more than this many trades for `limit` of them: the window is halved instead.
  const enough = Math.max(limit, 100) * 3;
  const found: Trade[] = [];
  let calls = 0;
  let from = since;
  /** Spans seen to hold `enough` trades each (at most one a cut walk, so at most MAX_CALLS / 3). */
  const dense: { start: number; end: number }[] = [];
  /** `to`, halved while [from, to] would hold a dense span: such a window is known to be too long. */
  const short = (to: number) => {
    let end = to;
    const tooLong = () => dense.some((span) => from <= span.start && end >= span.end);
    while (end - from > 1000 && tooLong()) end = from + Math.floor((end - from) / 2);
    return end;
  };
  while (from <= now && found.length < limit) {
    let to = short(source.maxSpanMs ? Math.min(now, from + source.maxSpanMs - 1) : now);
    let seen = new Map<string, Trade>();
    let cursor: string | undefined;
    for (;;) {
      calls += 1;
      if (calls > MAX_CALLS) {
        // What was found is the oldest part, without a gap: the next sync continues after it.
        if (found.length > 0) return found.slice(0, limit);
        throw new VenueError(venue, 'rejected', `${venue} trade history needed more than ${MAX_CALLS} calls`);
      }
      const page = await source.fetch(from, to, cursor);
      for (const trade of page.trades) {
        const at = trade.timestamp ?? Number.NaN;
        if (at >= from && at <= to && !skip.has(key(trade))) seen.set(key(trade), trade);
      }
      cursor = page.next;
      if (!cursor || (source.oldestFirst && found.length + seen.size >= limit)) break;
      if (!source.oldestFirst && seen.size >= enough && to - from > 1000) {
        let start = to;
        let end = from;
        for (const { timestamp } of seen.values()) {
          start = Math.min(start, timestamp!);
          end = Math.max(end, timestamp!);
        }
        dense.push({ start, end });
        to = short(from + Math.floor((to - from) / 2));
        seen = new Map();
        cursor = undefined;
      }
    }
    found.push(
      ...[...seen.values()].sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0) || key(a).localeCompare(key(b))),
    );
    from = to + 1;
  }
  return found.slice(0, limit);
}

function key(trade: Trade): string {
  return String(trade.id ?? `${trade.timestamp}:${trade.order}:${trade.amount}`);
}
