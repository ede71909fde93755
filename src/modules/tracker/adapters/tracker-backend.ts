import type { DbExecutor } from '../../../platform/db/database.ts';

// What the tracker module needs from an issue tracker, whichever one answers: the embedded local
// tracker (our database) or Linear. Both answer issues in the same Linear-like shape.

/** Linear's WorkflowState.type values; `triage` exists only in Linear. */
export const STATE_TYPES = ['triage', 'backlog', 'unstarted', 'started', 'completed', 'canceled'] as const;
type StateType = (typeof STATE_TYPES)[number];

/** State types of an issue that is no longer open. */
export const CLOSED_STATE_TYPES: readonly StateType[] = ['completed', 'canceled'];

export interface TrackerIssue {
  id: string;
  identifier: string;
  title: string;
  description: string | null;
  priority: number;
  priorityLabel: string;
  state: { id: string; name: string; type: string };
  team: { id: string; key: string; name: string };
  assignee: { id: string; name: string } | null;
  labels: { id: string; name: string }[];
  estimate: number | null;
  dueDate: string | null;
  projectId: string | null;
  parentId: string | null;
  /** The agent that filed the issue through the agent endpoint, if any. */
  agentId: string | null;
  url: string;
  createdAt: string;
  updatedAt: string;
}

/** Fields settable on create and update. `null` clears a field on update. */
export interface IssueFields {
  title?: string;
  description?: string | null;
  /** A state name of the issue's team (case-insensitive) or a state type. */
  state?: string;
  priority?: number;
  assigneeId?: string | null;
  projectId?: string | null;
  parentId?: string | null;
  labelIds?: string[];
  estimate?: number | null;
  dueDate?: string | null;
}

export interface IssueCreate extends IssueFields {
  /** The issue's id, chosen by the caller (a UUID v4), so that a retry of the create names the same issue. */
  id?: string;
  teamId: string;
  title: string;
  /** Recorded on the issue so that the agent endpoint can find the agent's open issues. */
  agentId?: string;
}

export interface IssueQuery {
  /** Issues whose state has one of these types or one of these names; no filter when both are empty. */
  stateTypes: string[];
  stateNames: string[];
  assigneeId?: string;
  /** A label name, case-insensitive. */
  label?: string;
  limit: number;
}

export interface IssuePage {
  issues: TrackerIssue[];
  hasMore: boolean;
}

export interface BackendHealth {
  reachable: boolean;
  latencyMs: number | null;
  detail: string;
}

/**
 * What a write causes in our database (audit row, outbox message). The local backend runs it inside
 * the transaction of the write, so both commit together; Linear's after its write succeeded (a create's
 * audit is recorded as an intent before it is sent, decision 1010).
 */
export type IssueEffects = (executor: DbExecutor, issue: TrackerIssue) => Promise<void>;

export interface TrackerBackend {
  readonly name: 'local' | 'linear';
  /** `signal`: the caller's bound (an agent filing's, decision 988); once it fires no more calls are made. */
  createIssue(input: IssueCreate, effects?: IssueEffects, signal?: AbortSignal): Promise<TrackerIssue>;
  /** By UUID or identifier (`ENG-42`); null when unknown. */
  getIssue(ref: string): Promise<TrackerIssue | null>;
  /** Null when the issue is unknown. */
  updateIssue(ref: string, patch: IssueFields, effects?: IssueEffects): Promise<TrackerIssue | null>;
  /** Most recently updated first. */
  listIssues(query: IssueQuery): Promise<IssuePage>;
  /** Ids of the labels with these names (case-insensitive) usable in the team, creating the missing ones. */
  ensureLabels(teamId: string, names: string[], signal?: AbortSignal): Promise<string[]>;
  /** An issue of the team filed by this agent with exactly this title whose state is not completed or canceled. */
  findOpenAgentIssue(
    teamId: string,
    agentId: string,
    title: string,
    signal?: AbortSignal,
  ): Promise<TrackerIssue | null>;
  health(): Promise<BackendHealth>;
}
