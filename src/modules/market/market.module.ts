// What the market module contributes besides its routes: nothing the database or the jobs hold (decision 230).
import { defineModule } from '../../platform/module.ts';

export const MARKET_MODULE = defineModule({
  name: 'market',
});
