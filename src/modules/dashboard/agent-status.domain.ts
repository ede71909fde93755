// When an agent counts as active, idle or silent (docs/decisions/081-dashboard-agents.md).

export const AGENT_STATUSES = ['active', 'idle', 'silent'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

const MINUTE_MS = 60 * 1000;

/** Seen within 15 minutes: active; within 24 hours: idle; longer ago or never: silent. */
export const AGENT_THRESHOLDS = { activeWithinMs: 15 * MINUTE_MS, idleWithinMs: 24 * 60 * MINUTE_MS } as const;

/**
 * The status of an agent last seen at `lastSeenAt` (null: never reported activity). Bounds are
 * inclusive: seen exactly 15 minutes ago is still active. A time ahead of `now` (a reporter's
 * clock running fast) counts as just seen.
 */
export function agentStatus(lastSeenAt: Date | null, now: Date, thresholds = AGENT_THRESHOLDS): AgentStatus {
  if (lastSeenAt === null) return 'silent';
  const age = now.getTime() - lastSeenAt.getTime();
  if (age <= thresholds.activeWithinMs) return 'active';
  if (age <= thresholds.idleWithinMs) return 'idle';
  return 'silent';
}
