// The portfolio: what a user's holdings are worth, what they cost (FIFO lots) and what was made,
// from the exchange module's stored balances and trades, valued with the market module's prices.
import type { Platform } from '../../platform/platform.ts';
import type { PortfolioDeps } from './portfolio.deps.ts';
import { createLedgerStore, createPortfolioRepository } from './portfolio.repository.ts';
import { portfolioRoutes } from './routes/portfolio.routes.ts';
import { createPortfolioService } from './portfolio.service.ts';

export function createPortfolioModule(platform: Platform, deps: PortfolioDeps) {
  const service = createPortfolioService({
    source: deps.source,
    quotes: deps.quotes,
    candles: createPortfolioRepository(platform.database.db),
    ledgers: createLedgerStore(platform.database.db),
    clock: platform.clock,
  });
  return {
    name: 'portfolio',
    service,
    routes: portfolioRoutes({ service, guards: deps.guards }),
  };
}

/** What the module contributes to the app and the database (decision 230). */
export { PORTFOLIO_MODULE } from './portfolio.module.ts';
