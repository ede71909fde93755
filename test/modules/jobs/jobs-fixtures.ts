// Shared set-up of the jobs tests: an app with the job secret set and the Binance fake as market data,
// a trigger helper, and a jobs module built from the app's platform (for an injected scheduler timer).
import type { LightMyRequestResponse } from 'fastify';
import { createModules } from '../../../src/app.ts';
import type { TimerFactory } from '../../../src/modules/jobs/scheduler.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import type { Platform } from '../../../src/platform/platform.ts';
import type { FastifyInstance } from 'fastify';
import assert from 'node:assert/strict';
import { startBinanceFake, type BinanceFake } from '../../fakes/binance.ts';
import { after, before, beforeEach } from '../../helpers/suite.ts';
import { buildTestApp, resetDatabase, signIn, type TestApp } from '../../helpers/test-app.ts';

export const JOB_SECRET = 'job-secret-0123456789abcdef';
/** A whole minute a few minutes before the real time: the Binance fake serves candles up to the real now. */
export const NOW = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 5 * 60_000);
export const HOUR = 3_600_000;
export const DAY = 86_400_000;
export const ago = (ms: number) => new Date(NOW.getTime() - ms);

/** The jobs tests' settings: the job secret, the Binance fake as market data (3 s upstream timeout), no trigger window. */
export function jobsEnv(binance: BinanceFake, env: Record<string, string> = {}): Record<string, string> {
  return {
    SCHEDULED_JOB_SECRET: JOB_SECRET,
    BINANCE_API_URL: binance.url,
    MARKET_UPSTREAM_TIMEOUT_MS: '3000',
    JOB_TRIGGER_WINDOW_SECONDS: '0',
    ...env,
  };
}

/**
 * One app for the tests of the calling describe block, handed to `started` before them: its clock fixed
 * at NOW, the job secret set, the Binance fake as market data (3 s upstream timeout) and no trigger
 * window. Its database is emptied before each test; the app and the fake are closed after the tests.
 */
export function jobsAppPerFile(
  started: (app: { t: TestApp; binance: BinanceFake }) => void,
  env: Record<string, string> = {},
): void {
  let binance: BinanceFake;
  let t: TestApp;
  before(async () => {
    binance = await startBinanceFake();
    t = await buildTestApp({ clock: fixedClock(NOW), env: jobsEnv(binance, env) });
    started({ t, binance });
  });
  beforeEach(() => resetDatabase(t.database));
  after(async () => {
    await t.close();
    await binance.close();
  });
}

export function trigger(
  app: FastifyInstance,
  job: string,
  secret: string | null = JOB_SECRET,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/api/scheduled/${job}`,
    headers: { ...(secret === null ? {} : { 'x-scheduled-job-secret': secret }), ...headers },
  });
}

/** `GET /api/scheduled/runs/{run_id}` with the job secret. */
export function readRun(
  app: FastifyInstance,
  runId: string,
  secret: string = JOB_SECRET,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'GET',
    url: `/api/scheduled/runs/${runId}`,
    headers: { 'x-scheduled-job-secret': secret },
  });
}

/** Polls the run read until the run is no longer `running`; answers the run as read then. */
export async function awaitRun(
  app: FastifyInstance,
  runId: string,
  secret: string = JOB_SECRET,
  timeoutMs = 30_000,
  // biome-ignore lint/suspicious/noExplicitAny: a run read is a JSON body, as untyped as response.json()
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await readRun(app, runId, secret);
    if (response.statusCode !== 200) throw new Error(`run ${runId}: ${response.statusCode} ${response.body}`);
    const run = response.json();
    if (run.status !== 'running') return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Triggers a job, expects it to start (202), and answers the run once it has ended. */
// biome-ignore lint/suspicious/noExplicitAny: a run read is a JSON body, as untyped as response.json()
export async function runJob(app: FastifyInstance, job: string): Promise<any> {
  const response = await trigger(app, job);
  if (response.statusCode !== 202) throw new Error(`${job} did not start: ${response.statusCode} ${response.body}`);
  return awaitRun(app, response.json().run_id);
}

/** The jobs module as app.ts wires it, over fresh instances of the modules it uses. */
export function jobsModuleFor(platform: Platform, timers?: TimerFactory, lostRunSweepMs?: number) {
  return createModules(platform, { jobTimers: timers, lostRunSweepMs }).jobs;
}

/**
 * One intel event about `symbol`, 30 hours old (so matured), made by a new admin: the autopilot's next run
 * scores it, asking the market for its candles (which a test holds back to make the run last).
 */
export async function maturedIntel(
  t: { app: FastifyInstance; database: Parameters<typeof signIn>[1] },
  symbol: string,
  direction: 'up' | 'down' = 'up',
): Promise<void> {
  const admin = await signIn(t.app, t.database, { role: 'admin' });
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/admin/command-center/intel',
    headers: admin.headers,
    payload: {
      event_type: 'x',
      asset: symbol.replace(/USDT$/, ''),
      symbol,
      direction,
      source: 's',
      strength: 0.5,
      detected_at: ago(30 * HOUR).toISOString(),
    },
  });
  assert.equal(created.statusCode, 201, created.body);
}
