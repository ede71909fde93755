// The command center's figures the database keeps (command-center.routines.sql).
import type { DerivedFigures } from '../../platform/db/derived-figures.ts';

export const MARKET_INTEL_COUNTS: DerivedFigures = {
  table: 'market_intel_counts',
  key: ['trust_tier', 'source', 'direction', 'outcome'],
  recomputed: 'market_intel_counts_recomputed()',
  sources: ['market_intel_events'],
};

export const TASK_COUNTS: DerivedFigures = {
  table: 'command_center_task_counts',
  key: ['status', 'priority', 'assignee', 'source_type'],
  recomputed: 'command_center_task_counts_recomputed()',
  sources: ['command_center_tasks'],
};

export const TASK_DAY_COUNTS: DerivedFigures = {
  table: 'command_center_task_day_counts',
  key: ['status', 'created_day'],
  recomputed: 'command_center_task_day_counts_recomputed()',
  sources: ['command_center_tasks'],
};
