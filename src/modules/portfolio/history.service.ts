// The portfolio's worth over a window: the amounts held at each boundary, worked back from the
// latest balances through the events since, valued at the close of the candle that ended there;
// its time-weighted and money-weighted returns (docs/decisions/154).
import type { Clock } from '../../platform/clock.ts';
import { invalidField, unavailable } from '../../platform/http/errors.ts';
import { dec, roundMoney, type Dec, type LedgerEvent } from './ledger.domain.ts';
import type { LedgerService } from './ledger.service.ts';
import type { HistoryInterval, PortfolioQuotes, PortfolioSource } from './portfolio.deps.ts';
import type { PortfolioRepository } from './portfolio.repository.ts';
import { priceThrough, type PriceLeg } from './price-legs.domain.ts';
import type { PricingService } from './pricing.service.ts';
import { holdingsAt, timeWeightedReturn, xirr } from './returns.domain.ts';

const HISTORY_INTERVAL_MS: Record<HistoryInterval, number> = { '1h': 3_600_000, '1d': 86_400_000 };
/** Points one history answer holds at most. */
const MAX_POINTS = 1000;
/** The window when `start` is not given. */
const DEFAULT_WINDOW_DAYS = 30;
const num = (value: Dec) => Number(value.toString());

/** A user's holdings valued at each interval boundary of a window, and the window's returns. */
export interface PortfolioHistory {
  quote: string;
  interval: HistoryInterval;
  points: { at: Date; value: Dec; netDeposits: Dec }[];
  /** Time-weighted return over the window; null when it cannot be computed. */
  twr: Dec | null;
  /** Money-weighted return (XIRR); null when it cannot be computed. */
  mwr: number | null;
}

export function createHistoryService(deps: {
  source: Pick<PortfolioSource, 'holdings'>;
  quotes: Pick<PortfolioQuotes, 'closed'>;
  candles: PortfolioRepository;
  ledger: Pick<LedgerService, 'events'>;
  pricing: PricingService;
  clock: Clock;
}) {
  const { clock } = deps;
  return {
    async history(
      userId: string,
      query: { quote: string; start?: string; end?: string; interval: HistoryInterval },
    ): Promise<PortfolioHistory> {
      const prices = deps.pricing.pricer(query.quote);
      const step = HISTORY_INTERVAL_MS[query.interval];
      const now = clock.now().getTime();
      const end = Math.min(query.end ? Date.parse(query.end) : now, now);
      const start = query.start ? Date.parse(query.start) : end - DEFAULT_WINDOW_DAYS * 86_400_000;
      if (start >= end)
        throw invalidField(['query', 'start'], 'start must be earlier than end (and than now)', query.start ?? null);
      // Counted before any is made: a window of centuries would otherwise build millions first (decision 199).
      const first = Math.ceil(start / step) * step;
      const live = end === now;
      const aligned = first > end ? 0 : Math.floor((end - first) / step) + 1;
      const count = aligned + (live && (aligned === 0 || (end - first) % step !== 0) ? 1 : 0);
      if (count > MAX_POINTS) {
        throw invalidField(
          ['query', 'start'],
          `the window holds ${count} points of ${query.interval}; at most ${MAX_POINTS}`,
          query.start ?? null,
          'value_error',
          { error: `at most ${MAX_POINTS} points`, le: MAX_POINTS },
        );
      }
      // Interval boundaries within the window; the last point is `end` itself when it is now.
      const times: number[] = [];
      for (let ts = first; ts <= end; ts += step) times.push(ts);
      if (live && times.at(-1) !== end) times.push(end);
      const [all, rows] = await Promise.all([deps.ledger.events(userId, prices), deps.source.holdings(userId)]);
      const current = new Map<string, Dec>();
      for (const r of rows) current.set(r.currency, (current.get(r.currency) ?? dec(0)).plus(r.total));
      const held = holdingsAt(current, all, times);
      // Each symbol's closes over the window, from the stored candles first; the venue only for what is missing.
      const assets = new Set(held.flatMap((m) => [...m].filter(([, amount]) => amount.gt(0)).map(([asset]) => asset)));
      const paths = new Map<string, PriceLeg[] | null>();
      for (const asset of assets) paths.set(asset, await prices.legs(asset));
      const symbols = new Set<string>();
      for (const path of paths.values()) for (const leg of path ?? []) symbols.add(leg.symbol);
      const boundaries = times.filter((ts) => !(live && ts === end) || ts % step === 0);
      const closes = new Map<string, Map<number, string>>();
      if (boundaries.length > 0) {
        const first = boundaries[0]! - step;
        const last = boundaries.at(-1)! - step;
        for (const symbol of symbols) {
          let stored = await deps.candles.closes(symbol, query.interval, new Date(first), new Date(last));
          if (stored.size < boundaries.length) {
            // Without the closes, the points would value the asset at nothing: no answer beats a wrong one.
            const fetched = await deps.quotes.closed(symbol, query.interval, first, last).catch((error: unknown) => {
              throw unavailable(`The venue did not give the ${query.interval} closes of ${symbol}; try again shortly`, {
                cause: error,
                headers: { 'retry-after': '5' },
              });
            });
            await deps.candles.store(symbol, query.interval, fetched);
            stored = await deps.candles.closes(symbol, query.interval, new Date(first), new Date(last));
          }
          closes.set(symbol, stored);
        }
      }
      // The last prices, for the point at now.
      const lastPrices = new Map<string, Dec | null>();
      if (live) for (const [asset, path] of paths) if (path) lastPrices.set(asset, await prices.now(asset));
      const flows = all.filter(
        (e): e is Extract<LedgerEvent, { kind: 'deposit' | 'withdrawal' }> =>
          e.kind === 'deposit' || e.kind === 'withdrawal',
      );
      const flowValue = (e: (typeof flows)[number]) =>
        e.kind === 'deposit' ? e.amount.times(e.price) : e.amount.times(e.price).neg();
      const points = times.map((ts, i) => {
        // At now: the last prices; at a boundary: the close of the candle that ended there.
        const priceOf = (asset: string) => {
          const path = paths.get(asset);
          if (!path) return null;
          if (live && ts === end) return lastPrices.get(asset) ?? null;
          return priceThrough(path, (symbol) => {
            const close = closes.get(symbol)?.get(ts - step);
            return close === undefined ? null : dec(close);
          });
        };
        let value = dec(0);
        for (const [asset, amount] of held[i]!) {
          if (amount.lte(0)) continue;
          const price = asset === prices.quote ? dec(1) : priceOf(asset);
          if (price) value = value.plus(amount.times(price));
        }
        const netDeposits = flows
          .filter((f) => f.at.getTime() <= ts)
          .reduce((sum, f) => sum.plus(flowValue(f)), dec(0));
        return { ts, value: roundMoney(value, prices.quote), netDeposits: roundMoney(netDeposits, prices.quote) };
      });
      const inPeriod = (from: number, to: number) => flows.filter((f) => f.at.getTime() > from && f.at.getTime() <= to);
      const twr = timeWeightedReturn(
        points.map((p, i) => ({
          value: p.value,
          flow: i === 0 ? dec(0) : inPeriod(points[i - 1]!.ts, p.ts).reduce((sum, f) => sum.plus(flowValue(f)), dec(0)),
        })),
      );
      const firstPoint = points[0]!;
      const lastPoint = points.at(-1)!;
      const cashflows = [
        { at: firstPoint.ts, amount: -num(firstPoint.value) },
        ...inPeriod(firstPoint.ts, lastPoint.ts).map((f) => ({ at: f.at.getTime(), amount: -num(flowValue(f)) })),
        { at: lastPoint.ts, amount: num(lastPoint.value) },
      ].filter((f) => f.amount !== 0);
      const mwr = xirr(cashflows);
      return {
        quote: prices.quote,
        interval: query.interval,
        points: points.map((p) => ({ at: new Date(p.ts), value: p.value, netDeposits: p.netDeposits })),
        twr,
        mwr,
      };
    },
  };
}
