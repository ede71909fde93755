// The dashboard's answers on the wire: its services return Dates, camelCase figures and the other
// modules' values, and the routes answer them through these mappers, each typed by its response schema.
import { iso } from '../../platform/http/schemas.ts';
import { budgetView } from '../../platform/venue-budget/venue-budget.ts';
import { AGENT_THRESHOLDS } from './agent-status.domain.ts';
import type { AgentsOverview } from './agents.service.ts';
import type { IntegrationCore, IntegrationsAnswer } from './integrations.schemas.ts';
import type { IntegrationState, Integrations } from './integrations.service.ts';
import type { AgentsAnswer, Overview } from './overview.schemas.ts';
import type { DashboardOverview } from './overview.service.ts';
import { PROBE_TTL_MS } from './probe-memo.ts';

function coreWire(s: IntegrationState): IntegrationCore {
  return {
    configured: s.configured,
    reachable: s.reachable,
    checked_at: iso(s.checkedAt),
    last_success_at: iso(s.lastSuccessAt),
    last_error_at: iso(s.lastErrorAt),
    last_error: s.lastError,
  };
}

export function integrationsWire(answer: Integrations): IntegrationsAnswer {
  const { marketData: market, tracker, chat, mail, redis } = answer;
  return {
    generated_at: iso(answer.generatedAt)!,
    probe_ttl_seconds: PROBE_TTL_MS / 1000,
    exchanges: answer.exchanges.map((e) => {
      const { used_weight_1m, limit_1m, cap_1m, share, breaker_open, breaker_until, scope } = budgetView(e.budget);
      return {
        venue: e.venue,
        credentials: e.credentials,
        health: e.health,
        latency_ms: e.latencyMs,
        budget: { used_weight_1m, limit_1m, cap_1m, share, breaker_open, breaker_until, scope },
        ...coreWire(e),
      };
    }),
    market_data: {
      source: market.source,
      status: market.status,
      latency_ms: market.latencyMs,
      live_stream: market.liveStream,
      ...coreWire(market),
    },
    tracker: { backend: tracker.backend, latency_ms: tracker.latencyMs, ...coreWire(tracker) },
    chat: { format: chat.format, pending: chat.pending, dead_letters: chat.deadLetters, ...coreWire(chat) },
    mail: {
      latency_ms: mail.latencyMs,
      last_delivery_at: iso(mail.lastDeliveryAt),
      pending: mail.pending,
      dead_letters: mail.deadLetters,
      ...coreWire(mail),
    },
    webhooks: answer.webhooks.map((w) => ({
      provider: w.provider,
      last_delivery_at: iso(w.lastDeliveryAt),
      last_refused_at: iso(w.lastRefusedAt),
      last_refusal: w.lastRefusal,
      ...coreWire(w),
    })),
    redis: { latency_ms: redis.latencyMs, ...coreWire(redis) },
  };
}

export function overviewWire(o: DashboardOverview): Overview {
  const { counts } = o;
  const deliveries = counts.webhookDeliveries24h;
  return {
    generated_at: iso(o.generatedAt)!,
    status: o.status,
    service: {
      version: o.service.version,
      started_at: iso(o.service.startedAt)!,
      uptime_seconds: o.service.uptimeSeconds,
    },
    database: { kind: o.database.kind, status: o.database.status, latency_ms: o.database.latencyMs },
    cache: { kind: o.cache.kind, status: o.cache.status, latency_ms: o.cache.latencyMs },
    counts: {
      users_by_status: counts.usersByStatus,
      active_sessions: counts.activeSessions,
      open_tasks_by_status: counts.openTasksByStatus,
      open_tasks: counts.openTasks,
      webhook_deliveries_24h: deliveries && { total: deliveries.total, by_provider: deliveries.byProvider },
      outbox: counts.outbox && { backlog: counts.outbox.backlog, dead_letters: counts.outbox.deadLetters },
    },
    jobs:
      o.jobs === null
        ? null
        : o.jobs.map((run) => ({
            job: run.job,
            status: run.status,
            trigger: run.trigger,
            started_at: iso(run.startedAt)!,
            finished_at: iso(run.finishedAt),
            error: run.error,
          })),
  };
}

export function agentsWire(answer: AgentsOverview): AgentsAnswer {
  return {
    generated_at: iso(answer.generatedAt)!,
    thresholds: {
      active_within_minutes: AGENT_THRESHOLDS.activeWithinMs / 60_000,
      idle_within_hours: AGENT_THRESHOLDS.idleWithinMs / 3_600_000,
    },
    counts: answer.counts,
    agents: answer.agents.map((a) => ({
      id: a.agentId,
      name: a.agentName,
      last_seen_at: iso(a.lastSeenAt),
      actions_24h: a.actions24h,
      open_tasks: a.openTasks,
      status: a.status,
    })),
  };
}
