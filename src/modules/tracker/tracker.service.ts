// The tracker's use cases over whichever backend is configured: defaults, the agent filing rules
// (one open issue per agent and title), the audit trail and the health check.
import { createHash, randomUUID } from 'node:crypto';
import { audit, type TrackerAuditAction } from './tracker.audit.ts';
import type { Actor } from '../../platform/auth/actor.ts';
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import type { Logger } from 'pino';
import { AppError, conflict, notFound, unavailable } from '../../platform/http/errors.ts';
import { reusedFor } from '../../platform/reused.ts';
import type { NotificationsModule } from '../notifications/index.ts';
import type {
  BackendHealth,
  IssueEffects,
  IssueFields,
  TrackerBackend,
  TrackerIssue,
} from './adapters/tracker-backend.ts';
import type { IssueIntentsRepository } from './issue-intents.repository.ts';
import type { SettleIssueIntentsResult as SettleIntentsResult } from './settle-issue-intents.job.ts';
import { createFingerprint, keyedIssueId, parseStatesFilter, uniqueNames } from './tracker.domain.ts';
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

/** Intents a settle-issue-intents run looks up at most (one tracker read each); the rest wait for the next. */
const INTENTS_PER_RUN = 200;
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
  logger: Pick<Logger, 'warn'>;
  messages: Pick<NotificationsModule['messages'], 'chat'>;
  /** The intents of writes whose audit is not written with them (Linear's, decision 1010). */
  intents: IssueIntentsRepository;
  settings: TrackerSettings;
}) {
  const { cache, clock, intents, logger, settings } = deps;
  /** Linear's writes are not in our database's transaction: their audit goes through an intent (decision 1010). */
  const remote = deps.backend.name === 'linear';
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
  async function withAgentLock<T>(agentKey: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const key = `tracker:agent-filing:${agentKey}`;
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

  /** The issue exists: its audit row written now. Failing, the intent stays for the next write (logged). */
  async function settle(issue: TrackerIssue): Promise<void> {
    await intents.settle(issue, backend.name).catch((error: unknown) => {
      logger.warn(
        { err: error, issueId: issue.id, identifier: issue.identifier },
        'an issue at the tracker could not be audited: its intent stays for the next write to settle',
      );
    });
  }

  /**
   * Intents older than an agent filing's lock (no create of ours can still be in flight) are settled: the
   * issue looked up by its id, audited if there, forgotten if not, up to `limit` of them, oldest first. The
   * first failure (the tracker or the database away) ends the pass; what is left waits for the next.
   */
  async function settleIntents(limit: number): Promise<SettleIntentsResult> {
    const result = { checked: 0, audited: 0, dropped: 0 };
    const before = new Date(clock.now().getTime() - filing.lockTtlMs);
    for (const intent of await intents.stale(before, limit)) {
      const issue = await deps.backend.getIssue(intent.id);
      result.checked += 1;
      if (!issue) {
        await intents.drop(intent.id, before);
        result.dropped += 1;
      } else if (await intents.settle(issue, backend.name)) result.audited += 1;
    }
    return result;
  }

  /** Run before each write, a few at a time; a failure leaves them for the next write or the job (decision 1170). */
  async function settleStale(): Promise<void> {
    await settleIntents(5).catch((error: unknown) => {
      logger.warn({ err: error }, 'issue intents left behind could not be settled now: the next write tries again');
    });
  }

  /**
   * A create at Linear, never lost to our database (decision 1010): the intent (the issue's id, chosen here,
   * and its audit entry) is recorded first, and the audit row written with the intent's removal once Linear
   * answers. Our database failing after Linear's write answers the issue as Linear holds it: it was created,
   * and its intent is settled by the retry or the next write. A create Linear refused leaves no intent.
   */
  async function createAtLinear(
    id: string,
    entry: { action: TrackerAuditAction; details: Record<string, unknown>; actor: Actor; agentKey?: string },
    send: (effects: IssueEffects) => Promise<TrackerIssue>,
  ): Promise<TrackerIssue> {
    const { action, details, actor, agentKey } = entry;
    await intents.record(
      { id, agentKey, audit: { action, details, actorId: actor.id, ip: actor.ip ?? null } },
      clock.now(),
    );
    let created: TrackerIssue | undefined;
    try {
      return await send(async (_executor, issue) => {
        created = issue;
        await intents.settle(issue, backend.name);
      });
    } catch (error) {
      if (created) {
        logger.warn(
          { err: error, issueId: created.id, identifier: created.identifier },
          'an issue created at the tracker could not be audited: its intent stays for the retry or the next write',
        );
        return created;
      }
      if (error instanceof AppError && error.status < 500 && error.status !== 429)
        await intents.drop(id).catch(() => {});
      throw error;
    }
  }

  return {
    /**
     * The settle-issue-intents job (decision 1170): the intents no retry or later write came back for,
     * settled as a write settles them, up to INTENTS_PER_RUN a run.
     */
    settleIntents: () => settleIntents(INTENTS_PER_RUN),

    /**
     * With an idempotency key the issue's id is derived from it (and the actor): the same key answers the
     * issue it created (`created: false`), and a retry of a create whose answer was lost sends the same id.
     * The same key with another request is refused (409, decision 1120).
     */
    async create(
      body: IssueCreateBody,
      actor: Actor,
      idempotencyKey?: string,
    ): Promise<{ issue: TrackerIssue; created: boolean }> {
      const id = idempotencyKey ? keyedIssueId(actor.id, idempotencyKey) : randomUUID();
      const fingerprint = idempotencyKey ? createFingerprint(body) : undefined;
      const existing = async () => {
        const issue = idempotencyKey ? await backend.getIssue(id) : null;
        if (!issue) return null;
        if (remote) await settle(issue);
        // Created by this key: by this request, or by another one, which the key cannot stand for too.
        const createdWith = await intents.createdWith(id, actor.id);
        if (createdWith !== undefined && createdWith !== fingerprint)
          throw conflict('This Idempotency-Key was used with another request body; use a new key for a new issue');
        return issue;
      };
      const replayed = await existing();
      if (replayed) return { issue: replayed, created: false };
      const details = { fields: Object.keys(body), ...(fingerprint ? { request: fingerprint } : {}) };
      try {
        if (!remote)
          return {
            issue: await backend.createIssue({ ...body, id }, recordAudit('tracker.issue.create', details, actor)),
            created: true,
          };
        await settleStale();
        const issue = await createAtLinear(id, { action: 'tracker.issue.create', details, actor }, (effects) =>
          backend.createIssue({ ...body, id }, effects),
        );
        return { issue, created: true };
      } catch (error) {
        // The same key sent twice at once: the other request created it (with this body, or 409).
        const raced = await existing().catch((other: unknown) => {
          if (other instanceof AppError && other.status === 409) throw other;
          return null;
        });
        if (raced) return { issue: raced, created: false };
        throw error;
      }
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
      const agentKey = createHash('sha256').update(`${body.agent_id}\n${body.title}`).digest('hex');
      return withAgentLock(agentKey, async (signal) => {
        if (remote) await settleStale();
        // A filing cut after Linear's write (or before its answer) left its intent: its id is the retry's.
        const left = remote ? await intents.latestForAgent(agentKey) : undefined;
        const open = await backend.findOpenAgentIssue(teamId, body.agent_id, body.title, signal);
        if (open) {
          if (left?.id === open.id) await settle(open);
          return { issue: open, deduplicated: true };
        }
        let id: string = randomUUID();
        if (left) {
          const there = await backend.getIssue(left.id);
          if (there) await settle(there);
          else id = left.id;
        }
        const labelIds = await backend.ensureLabels(
          teamId,
          uniqueNames([...(body.label_names ?? []), `agent:${agentType}`]),
          signal,
        );
        const input = {
          id,
          teamId,
          title: body.title,
          description: body.description,
          priority: body.priority ?? 2,
          labelIds,
          agentId: body.agent_id,
        };
        const details = { agentId: body.agent_id, agentType };
        if (remote) {
          // Linear announces new issues through its own webhook: no chat message here (decision 051).
          const issue = await createAtLinear(
            id,
            { action: 'tracker.issue.agent_file', details, actor, agentKey },
            (effects) => backend.createIssue(input, effects, signal),
          );
          return { issue, deduplicated: false };
        }
        const issue = await backend.createIssue(
          input,
          async (executor, created) => {
            await recordAudit('tracker.issue.agent_file', details, actor)(executor, created);
            // The local tracker has only us to announce its issues.
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
