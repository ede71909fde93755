// What the portfolio module contributes to the app and the database, declared once (decision 230).
import { defineModule } from '../../platform/module.ts';
import * as portfolioTables from './portfolio.tables.ts';

export const PORTFOLIO_MODULE = defineModule({
  name: 'portfolio',
  tables: [portfolioTables],
});
