// Shared set-up of the jobs tests: an app with the job secret set and the Binance fake as market data,
// a trigger helper, and a jobs module built from the app's platform (for an injected scheduler timer).
import type { LightMyRequestResponse } from 'fastify';
import { createModules } from '../../../src/app.ts';
import type { TimerFactory } from '../../../src/modules/jobs/scheduler.ts';
import type { Platform } from '../../../src/platform/platform.ts';
import type { FastifyInstance } from 'fastify';

export const JOB_SECRET = 'job-secret-0123456789abcdef';
/** A whole minute a few minutes before the real time: the Binance fake serves candles up to the real now. */
export const NOW = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 5 * 60_000);
export const HOUR = 3_600_000;
export const DAY = 86_400_000;
export const ago = (ms: number) => new Date(NOW.getTime() - ms);

export function trigger(app: FastifyInstance, job: string, secret: string | null = JOB_SECRET): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: `/api/scheduled/${job}`, headers: secret === null ? {} : { 'x-scheduled-job-secret': secret } });
}

/** The jobs module as app.ts wires it, over fresh instances of the modules it uses. */
export function jobsModuleFor(platform: Platform, timers?: TimerFactory) {
  return createModules(platform, { jobTimers: timers }).jobs;
}
