// The tracker's use cases over whichever backend is configured: defaults, the agent filing rules
// (one open issue per agent and title), the audit trail and the health check.
import { createHash } from 'node:crypto';
import { audit, type TrackerAuditAction } from './tracker.audit.ts';
import type { Actor } from '../../platform/auth/actor.ts';
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import { AppError, notFound, unavailable } from '../../platform/http/errors.ts';
import { reusedFor } from '../../platform/reused.ts';
import type { NotificationsModule } from '../notifications/index.ts';
import type { BackendHealth, IssueFields, TrackerBackend, TrackerIssue } from './adapters/tracker-backend.ts';
import { parseStatesFilter, uniqueNames } from './tracker.domain.ts';
import type { AgentIssueBody, IssueCreateBody, IssueListQuery, IssuePatchBody } from './tracker.schemas.ts';

/** Whether the tracker answers, which one, and the team agent-filed issues go to. */
export interface TrackerStatus extends BackendHealth {
  backend: TrackerBackend['name'];
  defaultTeamId: string | null;
}

/**
 * How long a health answer is reused. Health is public and each check is a call with the server's key,
 * counted against Linear's hourly allowance that the admins' operations and agents' filings share: reused,
 * an anonymous loop costs one call per half minute per instance (decision 742).
 */
export const HEALTH_REUSE_MS = 30_000;

/**
 * One agent filing's lock, and its bound (decision 988): a filing can make some 27 calls to Linear of up to
 * TRACKER_TIMEOUT_MS each, so it is cut at `boundMs`, well inside the lock, or its lock could lapse while it
 * still runs and a retry file the same issue twice. The margin covers a create Linear finishes after our cut.
 */
export interface AgentFilingTimes {
  lockTtlMs: number;
  boundMs: number;
}
export const AGENT_FILING_TIMES: AgentFilingTimes = { lockTtlMs: 120_000, boundMs: 90_000 };
/** How long a second filing waits for the first's lock. */
const AGENT_LOCK_WAIT_MS = 15_000;

interface TrackerSettings {
  /** Team of agent-filed issues; undefined only with Linear and no TRACKER_DEFAULT_TEAM_ID. */
  defaultTeamId: string | undefined;
  agentFiling?: AgentFilingTimes;
}

export function createTrackerService(deps: {
  backend: TrackerBackend;
  cache: Pick<Cache, 'acquire' | 'release'>;
  clock: Clock;
  messages: Pick<NotificationsModule['messages'], 'chat'>;
  settings: TrackerSettings;
}) {
  const { cache, clock, settings } = deps;
  const filing = settings.agentFiling ?? AGENT_FILING_TIMES;
  if (filing.boundMs >= filing.lockTtlMs) throw new Error('an agent filing must be bound within its lock');

  /** The last health check, or the one in flight. */
  const health = reusedFor(HEALTH_REUSE_MS, clock, () => deps.backend.health());
  /** A failing operation says more than a reused health answer: the next health check asks again. */
  const forgetHealthOnFailure =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (error) {
        health.forget();
        throw error;
      }
    };
  const backend: TrackerBackend = {
    ...deps.backend,
    createIssue: forgetHealthOnFailure(deps.backend.createIssue),
    getIssue: forgetHealthOnFailure(deps.backend.getIssue),
    updateIssue: forgetHealthOnFailure(deps.backend.updateIssue),
    listIssues: forgetHealthOnFailure(deps.backend.listIssues),
    findOpenAgentIssue: forgetHealthOnFailure(deps.backend.findOpenAgentIssue),
    ensureLabels: forgetHealthOnFailure(deps.backend.ensureLabels),
  };

  const recordAudit =
    (action: TrackerAuditAction, details: Record<string, unknown>, actor: Actor) =>
    async (executor: DbExecutor, issue: TrackerIssue) => {
      const entry = {
        actorId: actor.id,
        actorType: 'user' as const,
        action,
        targetType: 'tracker_issue',
        targetId: issue.id,
        ip: actor.ip,
      };
      await audit(
        { ...entry, details: { identifier: issue.identifier, backend: backend.name, ...details } },
        clock.now(),
        executor,
      );
    };

  /** Serialises filings of one agent and title across instances, so two retries cannot both create. */
  async function withAgentLock<T>(
    agentId: string,
    title: string,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const key = `tracker:agent-filing:${createHash('sha256').update(`${agentId}\n${title}`).digest('hex')}`;
    const deadline = performance.now() + AGENT_LOCK_WAIT_MS;
    let token: string | undefined;
    while (!(token = await cache.acquire(key, filing.lockTtlMs))) {
      if (performance.now() > deadline)
        throw unavailable('Another filing of this issue by this agent is still in progress; try again shortly');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const bound = new AbortController();
    const timer = setTimeout(
      () =>
        bound.abort(
          new AppError(
            'upstream_timeout',
            `The agent filing did not finish within ${filing.boundMs / 1000} s; the issue may not have been filed: try again`,
          ),
        ),
      filing.boundMs,
    );
    try {
      return await work(bound.signal);
    } finally {
      clearTimeout(timer);
      await cache.release(key, token);
    }
  }

  return {
    async create(body: IssueCreateBody, actor: Actor): Promise<TrackerIssue> {
      return backend.createIssue(body, recordAudit('tracker.issue.create', { fields: Object.keys(body) }, actor));
    },

    async get(ref: string): Promise<TrackerIssue> {
      const issue = await backend.getIssue(ref);
      if (!issue) throw notFound('Issue not found');
      return issue;
    },

    async update(ref: string, patch: IssuePatchBody, actor: Actor): Promise<TrackerIssue> {
      const fields: IssueFields = patch;
      // Nothing to change: answer the issue as it is rather than touching updatedAt.
      const issue =
        Object.keys(fields).length === 0
          ? await backend.getIssue(ref)
          : await backend.updateIssue(
              ref,
              fields,
              recordAudit('tracker.issue.update', { fields: Object.keys(fields) }, actor),
            );
      if (!issue) throw notFound('Issue not found');
      return issue;
    },

    async list(query: IssueListQuery): Promise<{ issues: TrackerIssue[]; hasMore: boolean }> {
      const page = await backend.listIssues({
        ...parseStatesFilter(query.states),
        assigneeId: query.assignee_id,
        label: query.label,
        limit: query.limit ?? 25,
      });
      return { issues: page.issues, hasMore: page.hasMore };
    },

    /** Files an issue for an agent, or answers the agent's open issue with the same title. */
    async fileForAgent(body: AgentIssueBody, actor: Actor): Promise<{ issue: TrackerIssue; deduplicated: boolean }> {
      const teamId = settings.defaultTeamId;
      if (!teamId) throw unavailable('Agent-filed issues need a team: set TRACKER_DEFAULT_TEAM_ID to a Linear team id');
      const agentType = body.agent_type ?? 'custom';
      return withAgentLock(body.agent_id, body.title, async (signal) => {
        const open = await backend.findOpenAgentIssue(teamId, body.agent_id, body.title, signal);
        if (open) return { issue: open, deduplicated: true };
        const labelIds = await backend.ensureLabels(
          teamId,
          uniqueNames([...(body.label_names ?? []), `agent:${agentType}`]),
          signal,
        );
        const issue = await backend.createIssue(
          {
            teamId,
            title: body.title,
            description: body.description,
            priority: body.priority ?? 2,
            labelIds,
            agentId: body.agent_id,
          },
          async (executor, created) => {
            await recordAudit(
              'tracker.issue.agent_file',
              { agentId: body.agent_id, agentType },
              actor,
            )(executor, created);
            // Linear announces new issues through its own webhook; the local tracker has only us.
            if (backend.name === 'local') {
              await deps.messages.chat(
                executor,
                {
                  source: 'tracker',
                  title: `${created.identifier} filed by agent ${body.agent_id}`,
                  text: created.title,
                  level: created.priority === 1 ? 'warning' : 'info',
                  url: created.url,
                  fields: [
                    { name: 'Priority', value: created.priorityLabel },
                    { name: 'State', value: created.state.name },
                    { name: 'Agent', value: `${body.agent_id} (${agentType})` },
                  ],
                },
                clock.now(),
                `tracker.agent-issue:${created.id}`,
              );
            }
          },
          signal,
        );
        return { issue, deduplicated: false };
      });
    },

    /** Reused for HEALTH_REUSE_MS (decision 742); concurrent callers share one check. */
    async health(): Promise<TrackerStatus> {
      const result = await health.get();
      return { ...result, backend: backend.name, defaultTeamId: settings.defaultTeamId ?? null };
    },
  };
}

export type TrackerService = ReturnType<typeof createTrackerService>;
