// GET /dashboard/agents: the command center's agent summaries with a status each.
import type { Clock } from '../../platform/clock.ts';
import { iso } from '../../platform/http/schemas.ts';
import { AGENT_THRESHOLDS, agentStatus } from './agent-status.domain.ts';
import type { DashboardDeps } from './dashboard.deps.ts';
import type { AgentsAnswer } from './overview.schemas.ts';

export function createAgentsService(deps: Pick<DashboardDeps, 'agents'> & { clock: Clock }) {
  return {
    async agents(): Promise<AgentsAnswer> {
      const now = deps.clock.now();
      const summaries = await deps.agents.summaries(now);
      const agents = summaries.map((s) => ({
        id: s.agentId,
        name: s.agentName,
        last_seen_at: iso(s.lastSeenAt),
        actions_24h: s.actions24h,
        open_tasks: s.openTasks,
        status: agentStatus(s.lastSeenAt, now),
      }));
      const counts = { active: 0, idle: 0, silent: 0 };
      for (const agent of agents) counts[agent.status] += 1;
      return {
        generated_at: iso(now)!,
        thresholds: {
          active_within_minutes: AGENT_THRESHOLDS.activeWithinMs / 60_000,
          idle_within_hours: AGENT_THRESHOLDS.idleWithinMs / 3_600_000,
        },
        counts,
        agents,
      };
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
