// GET /dashboard/agents: the command center's agent summaries with a status each.
import type { Clock } from '../../platform/clock.ts';
import { reusedFor } from '../../platform/reused.ts';
import { agentStatus, type AgentStatus } from './agent-status.domain.ts';
import type { DashboardDeps } from './dashboard.deps.ts';
import { DASHBOARD_REUSE_MS } from './overview.service.ts';
import { holdsEmail, withoutEmails } from './safe-text.domain.ts';

type AgentSummary = Awaited<ReturnType<DashboardDeps['agents']['summaries']>>[number];

/** Every agent seen, with its status at `generatedAt`, and how many have each status. */
export interface AgentsOverview {
  generatedAt: Date;
  counts: Record<AgentStatus, number>;
  agents: (AgentSummary & { status: AgentStatus })[];
}

export function createAgentsService(deps: Pick<DashboardDeps, 'agents'> & { clock: Clock }) {
  async function compute(): Promise<AgentsOverview> {
    const now = deps.clock.now();
    // The answer is public (decision 080): an id that is an e-mail address is a person (an agent-filed task
    // assigned to someone), not listed; an address in a name is masked (decision 954).
    const summaries = (await deps.agents.summaries(now)).filter((s) => !holdsEmail(s.agentId));
    const agents = summaries.map((s) => ({
      ...s,
      agentName: withoutEmails(s.agentName),
      status: agentStatus(s.lastSeenAt, now),
    }));
    const counts = { active: 0, idle: 0, silent: 0 };
    for (const agent of agents) counts[agent.status] += 1;
    return { generatedAt: now, counts, agents };
  }

  // Public, and the same for every caller: an anonymous loop costs one computation per window (decision 950).
  const reused = reusedFor(DASHBOARD_REUSE_MS, deps.clock, compute);
  return {
    /** Reused for DASHBOARD_REUSE_MS by the clock; concurrent callers share the one being computed. */
    agents: (): Promise<AgentsOverview> => reused.get(),
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
