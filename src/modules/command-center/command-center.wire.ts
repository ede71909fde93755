// The command center's answers on the wire: its services return task, comment, intel and activity
// rows, and the routes answer them through these mappers, each typed by its response schema.
import { iso } from '../../platform/http/schemas.ts';
import type { ActivityRow } from './agent-activity.repository.ts';
import type { AgentActivityEvent, IntelEvent, IntelFeed } from './feeds.schemas.ts';
import type { IntelFeedPage } from './feeds.service.ts';
import type { IntelRow } from './intel.repository.ts';
import type { CommentRow } from './tasks.repository.ts';
import type { Task, TaskComment, TaskList, TaskSummary } from './tasks.schemas.ts';
import type { TaskDetail, TaskEntry, TaskPage } from './tasks.service.ts';

export function commentWire(row: CommentRow): TaskComment {
  return { id: row.id, task_id: row.taskId, body: row.body, author_id: row.authorId, created_at: iso(row.createdAt)! };
}

function taskSummaryWire({ row, blockedBy, commentCount }: TaskEntry): TaskSummary {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    assignee: row.assignee,
    repo: row.repo,
    source_type: row.sourceType,
    source_id: row.sourceId,
    goal_id: row.goalId,
    parent_task_id: row.parentTaskId,
    blocked_by: blockedBy,
    result: row.result,
    created_by: row.createdBy,
    comment_count: commentCount,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
    completed_at: iso(row.completedAt),
  };
}

export function taskWire(task: TaskDetail): Task {
  return { ...taskSummaryWire(task), comments: task.comments.map(commentWire) };
}

export function taskListWire(page: TaskPage): TaskList {
  return { tasks: page.entries.map(taskSummaryWire), total: page.total, limit: page.limit, offset: page.offset };
}

export function intelEventWire(row: IntelRow): IntelEvent {
  return {
    id: row.id,
    event_type: row.eventType,
    asset: row.asset,
    symbol: row.symbol,
    direction: row.direction,
    source: row.source,
    trust_tier: row.trustTier,
    raw_note: row.rawNote,
    strength: row.strength,
    evidence: row.evidence,
    detected_at: iso(row.detectedAt)!,
    expires_at: iso(row.expiresAt),
    created_at: iso(row.createdAt)!,
    outcome_pct: row.outcomePct,
    scoring_error: row.outcomePct === null ? row.scoringError : null,
    scoring_attempts: row.scoringAttempts,
  };
}

/**
 * The intel feed's body (`IntelFeed`) around its events' JSON text, which the repository has the
 * database write in the shape of `intelEventWire` (decision 190).
 */
export function intelFeedJson(feed: IntelFeedPage): string {
  const summary: IntelFeed['summary'] = feed.summary;
  return `{"events":${feed.eventsJson},"summary":${JSON.stringify(summary)}}`;
}

export function activityEventWire(row: ActivityRow): AgentActivityEvent {
  return {
    id: row.id,
    agent_id: row.agentId,
    agent_name: row.agentName,
    kind: row.kind,
    rationale: row.rationale,
    action: row.action,
    created_at: iso(row.createdAt)!,
  };
}

/**
 * The activity feed's body (`AgentActivityFeed`) around its events' JSON text, which the repository has
 * the database write in the shape of `activityEventWire` (decision 184).
 */
export function activityFeedJson(eventsJson: string): string {
  return `{"events":${eventsJson}}`;
}
