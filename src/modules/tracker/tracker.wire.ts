// The tracker's answers on the wire where they differ from its domain values (an issue is answered as
// the backend gives it): the routes answer through these mappers, typed by the response schemas.
import type { Static } from 'typebox';
import type { TrackerIssue } from './adapters/tracker-backend.ts';
import type { IssueList, TrackerHealth } from './tracker.schemas.ts';
import type { TrackerStatus } from './tracker.service.ts';

export function issueListWire(page: { issues: TrackerIssue[]; hasMore: boolean }): Static<typeof IssueList> {
  return { issues: page.issues, count: page.issues.length, has_more: page.hasMore };
}

export function trackerHealthWire(status: TrackerStatus): TrackerHealth {
  return {
    backend: status.backend,
    reachable: status.reachable,
    latency_ms: status.latencyMs,
    detail: status.detail,
    default_team_id: status.defaultTeamId,
  };
}
