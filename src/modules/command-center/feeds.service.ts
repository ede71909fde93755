// The market intel feed and the agent activity feed: ingest, read, and what the scoring job and
// the dashboard need from them.
import { sql } from 'drizzle-orm';
import { audit, auditFrom } from './command-center.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { invalidField, notFound } from '../../platform/http/errors.ts';
import type { ActivityRow, AgentActivityRepository } from './agent-activity.repository.ts';
import type { AgentActivityCreateBody, AgentActivityQuery, IntelCreateBody, IntelQuery } from './feeds.schemas.ts';
import { horizonOf, summarize, type SourceSummary } from './intel-scoring.domain.ts';
import type { IntelRepository, IntelRow } from './intel.repository.ts';
import type { Actor } from './tasks.service.ts';
import type { TasksRepository } from './tasks.repository.ts';
import { isUuid } from '../../platform/ids.ts';

const HOUR_MS = 60 * 60 * 1000;

interface MaturedIntel {
  id: string;
  symbol: string;
  direction: string;
  detectedAt: Date;
  horizonAt: Date;
}

interface AgentSummary {
  agentId: string;
  agentName: string | null;
  lastSeenAt: Date | null;
  actions24h: number;
  openTasks: number;
}

/** The intel feed: the events asked for, as the wire's JSON text, and every source's tally over the filtered feed. */
export interface IntelFeedPage {
  eventsJson: string;
  summary: Record<string, SourceSummary>;
}

export function createIntelService(deps: { db: Db; repo: IntelRepository; clock: Clock }) {
  const { db, repo, clock } = deps;

  /** Stores the realised moves of events, each with its audit entry, in one statement; an unknown id is skipped. */
  async function recordOutcomes(outcomes: { id: string; outcomePct: number }[]): Promise<number> {
    if (outcomes.some((o) => !Number.isFinite(o.outcomePct))) {
      throw new RangeError('outcomePct must be a finite number');
    }
    const known = outcomes.filter((o) => isUuid(o.id));
    const now = clock.now();
    return repo.recordOutcomes(known, now, (scored) =>
      auditFrom(
        scored,
        {
          actorType: 'job',
          action: 'command_center.intel.score',
          subjectUserId: sql`NULL::uuid`,
          targetType: 'market_intel_event',
          targetId: sql`id::text`,
          details: sql`jsonb_build_object('outcome_pct', outcome_pct)`,
        },
        now,
      ),
    );
  }

  return {
    async feed(query: IntelQuery): Promise<IntelFeedPage> {
      const filters = {
        includeQuarantined: query.include_quarantined,
        activeAt: query.active ? clock.now() : undefined,
      };
      const { events, groups } = await repo.feedPage(filters, query.limit);
      return { eventsJson: events, summary: summarize(groups) };
    },

    async ingest(body: IntelCreateBody, actor: Actor): Promise<IntelRow> {
      const now = clock.now();
      const detectedAt = body.detected_at ? new Date(body.detected_at) : now;
      const expiresAt = body.expires_at ? new Date(body.expires_at) : null;
      if (expiresAt && expiresAt <= detectedAt) {
        throw invalidField(['body', 'expires_at'], 'expires_at must be later than detected_at', body.expires_at);
      }
      return db.transaction(async (tx) => {
        const row = await repo.insert(
          {
            eventType: body.event_type,
            asset: body.asset.toUpperCase(),
            symbol: body.symbol.toUpperCase(),
            direction: body.direction,
            source: body.source,
            trustTier: body.trust_tier ?? 'standard',
            strength: body.strength,
            evidence: body.evidence ?? {},
            rawNote: body.raw_note ?? '',
            detectedAt,
            expiresAt,
            createdBy: actor.id,
            createdAt: now,
          },
          tx,
        );
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'command_center.intel.create',
            targetType: 'market_intel_event',
            targetId: row.id,
            details: { source: row.source, symbol: row.symbol, direction: row.direction, trust_tier: row.trustTier },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return row;
      });
    },

    /**
     * Events whose horizon has passed, with no outcome yet and not given up: never-tried first, then
     * the least recently tried, oldest horizon first within each.
     */
    async listMaturedUnscored(now: Date, limit: number): Promise<MaturedIntel[]> {
      const rows = await repo.maturedUnscored(now, limit);
      return rows.map((r) => ({
        id: r.id,
        symbol: r.symbol,
        direction: r.direction,
        detectedAt: r.detectedAt,
        horizonAt: horizonOf(r),
      }));
    },

    /**
     * Records that events could not be scored, so the next run tries others first. `unscorable` (the
     * venue cannot price it) counts towards giving up; a market data failure does not. Nothing
     * happens for an event scored or gone in the meantime.
     */
    async recordScoringFailures(failures: { id: string; unscorable: boolean; reason: string }[]): Promise<void> {
      if (failures.some((f) => !isUuid(f.id))) throw notFound('Intel event not found');
      await repo.recordScoringFailures(
        failures.map((f) => ({ ...f, reason: f.reason.slice(0, 500) })),
        clock.now(),
      );
    },

    recordOutcomes,

    /** Stores the realised move of one event; 404 for an unknown id. */
    async recordOutcome(id: string, outcomePct: number): Promise<void> {
      if ((await recordOutcomes([{ id, outcomePct }])) === 0) throw notFound('Intel event not found');
    },
  };
}

export function createAgentsService(deps: {
  db: Db;
  repo: AgentActivityRepository;
  tasks: TasksRepository;
  clock: Clock;
}) {
  const { db, repo, tasks, clock } = deps;
  return {
    /** The agents' activity in the window asked for, newest first: the JSON text of the wire's events. */
    async feedAsJson(query: AgentActivityQuery): Promise<string> {
      const from = new Date(clock.now().getTime() - query.hours * HOUR_MS);
      return repo.sinceAsJson(from, query.limit, query.agent_id);
    },

    async record(body: AgentActivityCreateBody, actor: Actor): Promise<ActivityRow> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        const row = await repo.insert(
          {
            agentId: body.agent_id,
            agentName: body.agent_name ?? null,
            kind: body.kind,
            rationale: body.rationale ?? '',
            action: body.action ?? {},
            createdBy: actor.id,
            createdAt: now,
          },
          tx,
        );
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'command_center.agent_activity.create',
            targetType: 'agent_activity_event',
            targetId: row.id,
            details: { agent_id: row.agentId, kind: row.kind },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return row;
      });
    },

    /**
     * Every agent the command center knows of: those that reported activity, and the assignees
     * and filers of agent-filed tasks. Ordered by last activity, never-seen agents last.
     */
    async summaries(now: Date): Promise<AgentSummary[]> {
      const [stats, taskAgents, open] = await Promise.all([
        repo.statsPerAgent(new Date(now.getTime() - 24 * HOUR_MS), now),
        tasks.agentIdsFromTasks(),
        tasks.openTasksByAssignee(),
      ]);
      const byId = new Map<string, AgentSummary>();
      for (const s of stats) {
        byId.set(s.agentId, {
          agentId: s.agentId,
          agentName: s.agentName,
          lastSeenAt: s.lastSeenAt,
          actions24h: s.actionsSince,
          openTasks: 0,
        });
      }
      for (const agentId of taskAgents) {
        if (!byId.has(agentId))
          byId.set(agentId, { agentId, agentName: null, lastSeenAt: null, actions24h: 0, openTasks: 0 });
      }
      for (const summary of byId.values()) summary.openTasks = open.get(summary.agentId) ?? 0;
      return [...byId.values()].sort(
        (a, b) =>
          (b.lastSeenAt?.getTime() ?? -Infinity) - (a.lastSeenAt?.getTime() ?? -Infinity) ||
          a.agentId.localeCompare(b.agentId),
      );
    },
  };
}

export type IntelService = ReturnType<typeof createIntelService>;
export type AgentsService = ReturnType<typeof createAgentsService>;
