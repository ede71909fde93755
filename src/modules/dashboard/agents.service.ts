// GET /dashboard/agents: the command center's agent summaries with a status each.
import type { Clock } from '../../platform/clock.ts';
import { agentStatus, type AgentStatus } from './agent-status.domain.ts';
import type { DashboardDeps } from './dashboard.deps.ts';

type AgentSummary = Awaited<ReturnType<DashboardDeps['agents']['summaries']>>[number];

/** Every agent seen, with its status at `generatedAt`, and how many have each status. */
export interface AgentsOverview {
  generatedAt: Date;
  counts: Record<AgentStatus, number>;
  agents: (AgentSummary & { status: AgentStatus })[];
}

export function createAgentsService(deps: Pick<DashboardDeps, 'agents'> & { clock: Clock }) {
  return {
    async agents(): Promise<AgentsOverview> {
      const now = deps.clock.now();
      const summaries = await deps.agents.summaries(now);
      const agents = summaries.map((s) => ({ ...s, status: agentStatus(s.lastSeenAt, now) }));
      const counts = { active: 0, idle: 0, silent: 0 };
      for (const agent of agents) counts[agent.status] += 1;
      return { generatedAt: now, counts, agents };
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
