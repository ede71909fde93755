// GET /dashboard/overview: this instance, its database and cache, and the figures other modules
// keep. A figure that cannot be read is null and the answer `degraded`: the page never fails whole.
import type { Logger } from 'pino';
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Database } from '../../platform/db/database.ts';
import { reusedFor } from '../../platform/reused.ts';
import { probeWithin } from '../../platform/timeouts.ts';
import type { OutboxWorker } from '../../platform/outbox/outbox-worker.ts';
import type { DashboardDeps } from './dashboard.deps.ts';
import type { JobRun, JobRunsPort } from './jobs.port.ts';
import { safeErrorText } from './safe-text.domain.ts';

/** As /readyz: a dependency that does not answer a ping within this is down. */
const PING_TIMEOUT_MS = 2_000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Task statuses after which a task is no longer open (docs/decisions/020-command-center-tasks.md). */
const CLOSED_TASK_STATUSES = new Set(['done', 'cancelled']);

/**
 * How long a public dashboard answer is answered again: the overview here, the agents and the integrations
 * in their services (decision 950). Each reads nothing of the request and costs statements.
 */
export const DASHBOARD_REUSE_MS = 5_000;

/**
 * How long one overview is answered again. The route is public and the answer is the same for every
 * caller (it reads nothing of the request); each computation is seven statements and a cache ping, so
 * an anonymous loop costs one computation per this window and instance, whatever its rate (decision 747).
 */
export const OVERVIEW_REUSE_MS = DASHBOARD_REUSE_MS;

/** A dependency pinged for the answer: `up` when it answered within the timeout. */
export interface Ping {
  status: 'up' | 'down';
  /** Round trip in ms; null when down. */
  latencyMs: number | null;
}

type Counts = Record<string, number>;

/** This instance, its database and cache, and the figures the modules keep; null: could not be read. */
export interface DashboardOverview {
  generatedAt: Date;
  /** `degraded` when the database or the cache is down, or a figure could not be read. */
  status: 'ok' | 'degraded';
  service: { version: string; startedAt: Date; uptimeSeconds: number };
  database: Ping & { kind: Database['kind'] };
  cache: Ping & { kind: Cache['kind'] };
  counts: {
    usersByStatus: Counts | null;
    activeSessions: number | null;
    openTasksByStatus: Counts | null;
    openTasks: number | null;
    webhookDeliveries24h: { total: number; byProvider: Counts } | null;
    outbox: { backlog: number; deadLetters: number } | null;
  };
  /** The last run of each job, by job name, its error cleaned (safeErrorText). */
  jobs: JobRun[] | null;
}

async function ping(check: () => Promise<number>): Promise<Ping> {
  const probe = await probeWithin(check, PING_TIMEOUT_MS);
  return probe.up ? { status: 'up', latencyMs: probe.latencyMs } : { status: 'down', latencyMs: null };
}

export function createOverviewService(
  deps: Pick<DashboardDeps, 'version' | 'users' | 'sessions' | 'tasks' | 'webhooks'> & {
    jobs: JobRunsPort;
    database: Pick<Database, 'kind' | 'ping'>;
    cache: Pick<Cache, 'kind' | 'ping'>;
    outbox: Pick<OutboxWorker, 'stats'>;
    clock: Clock;
    logger: Pick<Logger, 'warn'>;
    startedAt: Date;
  },
) {
  const { clock, logger } = deps;

  async function compute(): Promise<DashboardOverview> {
    const now = clock.now();
    let unreadable = false;
    // Each figure on its own: one failing module leaves the others on the page.
    const figure = async <T>(name: string, read: () => Promise<T>): Promise<T | null> => {
      try {
        return await read();
      } catch (error) {
        unreadable = true;
        logger.warn({ err: error, figure: name }, 'dashboard figure could not be read');
        return null;
      }
    };

    const [database, cache, users, sessions, tasks, deliveries, outbox, jobs] = await Promise.all([
      ping(() => deps.database.ping()),
      ping(() => deps.cache.ping()),
      figure('users', () => deps.users.countsByStatus()),
      figure('sessions', () => deps.sessions.countActiveSessions()),
      figure('tasks', () => deps.tasks.countsByStatus()),
      figure('webhook deliveries', () => deps.webhooks.deliveryStats(new Date(now.getTime() - DAY_MS))),
      figure('outbox', () => deps.outbox.stats()),
      figure('jobs', () => deps.jobs.lastRuns()),
    ]);

    const openTasks =
      tasks && Object.fromEntries(Object.entries(tasks).filter(([status]) => !CLOSED_TASK_STATUSES.has(status)));
    const down = database.status === 'down' || cache.status === 'down';
    return {
      generatedAt: now,
      status: down || unreadable ? 'degraded' : 'ok',
      service: {
        version: deps.version,
        startedAt: deps.startedAt,
        uptimeSeconds: Math.max(0, Math.floor((now.getTime() - deps.startedAt.getTime()) / 1000)),
      },
      database: { kind: deps.database.kind, ...database },
      cache: { kind: deps.cache.kind, ...cache },
      counts: {
        usersByStatus: users,
        activeSessions: sessions,
        openTasksByStatus: openTasks,
        openTasks: openTasks && Object.values(openTasks).reduce((sum, n) => sum + n, 0),
        webhookDeliveries24h: deliveries,
        outbox: outbox && { backlog: outbox.pending + outbox.processing, deadLetters: outbox.dead },
      },
      jobs:
        jobs &&
        [...jobs]
          .sort((a, b) => a.job.localeCompare(b.job))
          .map((run) => ({ ...run, error: safeErrorText(run.error) })),
    };
  }

  const reused = reusedFor(OVERVIEW_REUSE_MS, clock, compute);
  return {
    /** Reused for OVERVIEW_REUSE_MS by the clock; concurrent callers share the one being computed. */
    overview: (): Promise<DashboardOverview> => reused.get(),
  };
}

export type OverviewService = ReturnType<typeof createOverviewService>;
