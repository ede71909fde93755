// What the paper engine uses from other modules: the bearer guards, the market module's books, last
// prices and live ticks, and the venue's fee rates from the exchange module. app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { ExchangeModule } from '../exchange/index.ts';
import type { MarketModule } from '../market/index.ts';

export interface PaperDeps {
  guards: Guards;
  market: Pick<MarketModule, 'quotes' | 'trading'>;
  fees: ExchangeModule['tradingFees'];
}
