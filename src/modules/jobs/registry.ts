// The registry: every job with its dependencies bound. Triggers (HTTP, the in-process scheduler)
// only ever call a job through the runner, by name.
import type { JobResult, RegisteredJob } from './job-runner.ts';
import { cleanupDeviceSessions, cleanupDeviceSessionsJob, CleanupDeviceSessionsResult, type CleanupDeviceSessionsDeps } from './jobs/cleanup-device-sessions.job.ts';
import { cleanupExpiredTokens, cleanupExpiredTokensJob, CleanupExpiredTokensResult, type CleanupExpiredTokensDeps } from './jobs/cleanup-expired-tokens.job.ts';
import { cleanupGracePeriods, cleanupGracePeriodsJob, CleanupGracePeriodsResult, type CleanupGracePeriodsDeps } from './jobs/cleanup-grace-periods.job.ts';
import { rotateApiKeys, rotateApiKeysJob, RotateApiKeysResult, type RotateApiKeysDeps } from './jobs/rotate-api-keys.job.ts';
import { strategyAutopilot, strategyAutopilotJob, strategyAutopilotUnits, StrategyAutopilotResult, type StrategyAutopilotDeps } from './jobs/strategy-autopilot.job.ts';
import { syncAccounts, syncAccountsJob, syncAccountsUnits, SyncAccountsResult, type SyncAccountsDeps } from './jobs/sync-accounts.job.ts';

export type RegistryDeps = RotateApiKeysDeps & CleanupGracePeriodsDeps & CleanupDeviceSessionsDeps & CleanupExpiredTokensDeps & StrategyAutopilotDeps & SyncAccountsDeps;

/** What the registry defines, one per name in JOB_NAMES (a unit test keeps the two equal). */
export const JOB_DEFINITIONS = [rotateApiKeysJob, cleanupGracePeriodsJob, cleanupDeviceSessionsJob, cleanupExpiredTokensJob, strategyAutopilotJob, syncAccountsJob] as const;

export function createRegistry(deps: RegistryDeps): RegisteredJob[] {
  const bind = <D>(fn: (deps: D, now: Date) => Promise<object>, d: D) => (now: Date) => fn(d, now) as Promise<JobResult>;
  return [
    { ...rotateApiKeysJob, result: RotateApiKeysResult, run: bind(rotateApiKeys, deps) },
    { ...cleanupGracePeriodsJob, result: CleanupGracePeriodsResult, run: bind(cleanupGracePeriods, deps) },
    { ...cleanupDeviceSessionsJob, result: CleanupDeviceSessionsResult, run: bind(cleanupDeviceSessions, deps) },
    { ...cleanupExpiredTokensJob, result: CleanupExpiredTokensResult, run: bind(cleanupExpiredTokens, deps) },
    { ...strategyAutopilotJob, result: StrategyAutopilotResult, run: bind(strategyAutopilot, deps), units: (r) => strategyAutopilotUnits(r as StrategyAutopilotResult) },
    { ...syncAccountsJob, result: SyncAccountsResult, run: bind(syncAccounts, deps), units: (r) => syncAccountsUnits(r as SyncAccountsResult) },
  ];
}
