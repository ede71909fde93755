// The portfolio's answers: the ledger of a user's trades (and transfers), valued with the market
// module's prices. No venue is called for a user's data; prices come through the market cache, and
// only for what is held or was traded in another currency than the quote.
import type { Clock } from '../../platform/clock.ts';
import { createHistoryService } from './history.service.ts';
import { dec, type Ledger } from './ledger.domain.ts';
import { createLedgerService } from './ledger.service.ts';
import type { PortfolioQuotes, PortfolioSource } from './portfolio.deps.ts';
import type { LedgerStore, PortfolioRepository } from './portfolio.repository.ts';
import { createPricingService } from './pricing.service.ts';
import { realizedCsv } from './realized-csv.domain.ts';
import { type HeldCosts, type Holding, type Summary, summarize } from './summary.domain.ts';

/** The summary of a user's holdings in a quote currency, as of a time. */
export interface PortfolioSummary {
  quote: string;
  asOf: Date;
  summary: Summary;
}

export function createPortfolioService(deps: {
  source: PortfolioSource;
  quotes: PortfolioQuotes;
  candles: PortfolioRepository;
  ledgers: LedgerStore;
  clock: Clock;
}) {
  const { source, clock } = deps;
  const pricing = createPricingService({ quotes: deps.quotes });
  const ledger = createLedgerService({ source, ledgers: deps.ledgers });
  const history = createHistoryService({ source, quotes: deps.quotes, candles: deps.candles, ledger, pricing, clock });
  /**
   * The last summary of each ledger, with the holdings and prices it valued (docs/decisions/630): a
   * ledger is never changed once it is answered (a change makes a new one), so the same ledger, amounts
   * and prices make the same summary. The lots' walk of each asset is kept with it (`held`): a price
   * change values again without walking thousands of open lots (docs/decisions/890).
   */
  const valued = new WeakMap<Ledger, { key: string; summary: Summary; held: HeldCosts }>();
  const valuedKey = (holdings: readonly Holding[]) =>
    holdings.map((h) => `${h.asset} ${h.amount.toString()} ${h.price?.toString() ?? '-'}`).join('\n');

  return {
    async summary(userId: string, query: { quote: string; exchange?: string }): Promise<PortfolioSummary> {
      const prices = pricing.pricer(query.quote);
      const [current, rows] = await Promise.all([
        ledger.current(userId, prices),
        source.holdings(userId, query.exchange),
      ]);
      const holdings: Holding[] = await Promise.all(
        rows.map(async (r) => ({ asset: r.currency, amount: dec(r.total), price: await prices.now(r.currency) })),
      );
      const key = valuedKey(holdings);
      let memo = valued.get(current);
      if (memo?.key !== key) {
        const held: HeldCosts = memo?.held ?? new Map();
        memo = { key, summary: summarize(current, holdings, held), held };
        valued.set(current, memo);
      }
      return { quote: prices.quote, asOf: clock.now(), summary: memo.summary };
    },

    history: history.history,

    async realizedCsv(userId: string, query: { quote: string }): Promise<string> {
      const prices = pricing.pricer(query.quote);
      return realizedCsv((await ledger.replayed(userId, prices)).closed, prices.quote);
    },
  };
}

export type PortfolioService = ReturnType<typeof createPortfolioService>;
