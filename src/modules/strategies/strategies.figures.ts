// The strategies module's figures the database keeps: strategies per status, kept by
// strategies.routines.sql (decision 931).
import type { DerivedFigures } from '../../platform/db/derived-figures.ts';

/** How many strategies are in each status: the autopilot's count of those in paper (decision 931). */
export const STRATEGY_STATUS_COUNTS: DerivedFigures = {
  table: 'strategy_status_counts',
  key: ['status'],
  recomputed: 'strategy_status_counts_recomputed()',
  sources: ['strategies'],
};
