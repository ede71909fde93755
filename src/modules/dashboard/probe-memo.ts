// Reachability probes of the integrations, remembered for a minute per instance so that the public
// integrations endpoint never turns one request into a call to every external system. Each probe
// is bounded by a timeout; a probe that throws or times out is an answer (unreachable), not an error.
import type { Clock } from '../../platform/clock.ts';
import { TimedOut, withTimeout } from '../../platform/timeouts.ts';
import { safeErrorText } from './safe-text.domain.ts';

export const PROBE_TTL_MS = 60_000;
/** No probe holds the answer up longer than this, whatever the module's own timeout. */
const PROBE_TIMEOUT_MS = 3_000;

export interface ProbeOutcome {
  reachable: boolean;
  latencyMs: number | null;
  /** Why it is unreachable; shown after `safeErrorText`. */
  error: string | null;
  /** A system-specific word about the answer, kept with the record (e.g. a venue's `maintenance`). */
  state?: string;
}

export interface ProbeRecord {
  reachable: boolean;
  state: string | null;
  latencyMs: number | null;
  checkedAt: Date;
  /** The last probe that reached the system, since this instance started. */
  lastSuccessAt: Date | null;
  lastErrorAt: Date | null;
  lastError: string | null;
}

type Probe = () => Promise<ProbeOutcome>;

async function bounded(probe: Probe, timeoutMs: number): Promise<ProbeOutcome> {
  try {
    return await withTimeout(probe(), timeoutMs);
  } catch (error) {
    return { reachable: false, latencyMs: null, error: error instanceof TimedOut ? error.message : 'the check failed' };
  }
}

export function createProbeMemo(deps: { clock: Clock; ttlMs?: number; timeoutMs?: number }) {
  const ttlMs = deps.ttlMs ?? PROBE_TTL_MS;
  const timeoutMs = deps.timeoutMs ?? PROBE_TIMEOUT_MS;
  const records = new Map<string, ProbeRecord>();
  // Concurrent requests for a stale entry share one probe.
  const inFlight = new Map<string, Promise<ProbeRecord>>();

  async function run(name: string, probe: Probe): Promise<ProbeRecord> {
    const outcome = await bounded(probe, timeoutMs);
    const now = deps.clock.now();
    const previous = records.get(name);
    const record: ProbeRecord = outcome.reachable
      ? {
          reachable: true,
          state: outcome.state ?? null,
          latencyMs: outcome.latencyMs,
          checkedAt: now,
          lastSuccessAt: now,
          lastErrorAt: previous?.lastErrorAt ?? null,
          lastError: previous?.lastError ?? null,
        }
      : {
          reachable: false,
          state: outcome.state ?? null,
          latencyMs: null,
          checkedAt: now,
          lastSuccessAt: previous?.lastSuccessAt ?? null,
          lastErrorAt: now,
          lastError: safeErrorText(outcome.error ?? 'unreachable'),
        };
    records.set(name, record);
    return record;
  }

  return {
    /** The remembered probe of `name` while younger than the TTL (by the clock), else a fresh one. */
    async get(name: string, probe: Probe): Promise<ProbeRecord> {
      const cached = records.get(name);
      if (cached && deps.clock.now().getTime() - cached.checkedAt.getTime() < ttlMs) return cached;
      let pending = inFlight.get(name);
      if (!pending) {
        pending = run(name, probe).finally(() => inFlight.delete(name));
        inFlight.set(name, pending);
      }
      return pending;
    },
  };
}

export type ProbeMemo = ReturnType<typeof createProbeMemo>;
