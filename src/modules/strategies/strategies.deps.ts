// What the strategies module uses from outside it: the bearer guards of its routes, and for its
// strategy-autopilot job the market-intel calls it scores, the candles it scores them from and the
// platform limit on promotions. app.ts passes them in.
import type { Guards } from '../../platform/auth/guards.ts';
import type { StrategyAutopilotDeps } from './strategy-autopilot.job.ts';

export interface StrategiesDeps {
  guards: Guards;
  intel: StrategyAutopilotDeps['intel'];
  candles: StrategyAutopilotDeps['candles'];
  platformLimits: StrategyAutopilotDeps['platformLimits'];
}
