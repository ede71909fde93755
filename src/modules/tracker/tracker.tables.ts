// Tables of the local tracker backend: teams, their workflow states, labels and issues. Only the
// local backend reads them; with TRACKER_BACKEND=linear they stay empty.
import { sql } from 'drizzle-orm';
import {
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import { users } from '../users/users.tables.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const trackerTeams = pgTable(
  'tracker_teams',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Prefix of the team's identifiers, e.g. `ENG` in `ENG-42`. */
    key: text('key').notNull(),
    name: text('name').notNull(),
    /** Last issue number handed out; incremented under the row lock, so numbers never repeat. */
    issueCounter: integer('issue_counter').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('tracker_teams_key_key').on(t.key)],
);

export const trackerWorkflowStates = pgTable(
  'tracker_workflow_states',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => trackerTeams.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** backlog | unstarted | started | completed | canceled (Linear's WorkflowState.type). */
    type: text('type').notNull(),
    /** Order within the team; the first state of a type is the one a type resolves to. */
    position: integer('position').notNull(),
    color: text('color').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('tracker_workflow_states_team_name_key').on(t.teamId, sql`lower(${t.name})`)],
);

/** Workspace-wide labels, as Linear's labels without a team. */
export const trackerLabels = pgTable(
  'tracker_labels',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    color: text('color').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('tracker_labels_name_key').on(sql`lower(${t.name})`)],
);

export const trackerIssues = pgTable(
  'tracker_issues',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    teamId: uuid('team_id')
      .notNull()
      .references(() => trackerTeams.id),
    number: integer('number').notNull(),
    identifier: text('identifier').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    stateId: uuid('state_id')
      .notNull()
      .references(() => trackerWorkflowStates.id),
    /** 0 none, 1 urgent, 2 high, 3 medium, 4 low. */
    priority: integer('priority').notNull().default(0),
    /** A user of this platform. */
    assigneeId: uuid('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    /** Opaque: the local tracker keeps no projects, it only remembers the reference. */
    projectId: text('project_id'),
    parentId: uuid('parent_id').references((): AnyPgColumn => trackerIssues.id, { onDelete: 'set null' }),
    estimate: integer('estimate'),
    dueDate: date('due_date', { mode: 'string' }),
    /** Set on issues filed through the agent endpoint; an open issue per agent and title is unique. */
    agentId: text('agent_id'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('tracker_issues_identifier_key').on(t.identifier),
    uniqueIndex('tracker_issues_team_number_key').on(t.teamId, t.number),
    index('tracker_issues_updated_idx').on(t.updatedAt.desc(), t.id.desc()),
    // A state's or a person's issues in the list's order (decision 1410).
    index('tracker_issues_state_idx').on(t.stateId, t.updatedAt.desc(), t.id.desc()),
    index('tracker_issues_assignee_idx').on(t.assigneeId, t.updatedAt.desc(), t.id.desc()),
    // An issue deleted sets its sub-issues' parent to null: found here, not by reading every issue (decision 1490).
    index('tracker_issues_parent_idx').on(t.parentId),
    index('tracker_issues_agent_idx').on(t.agentId, t.title),
  ],
);

export const trackerIssueLabels = pgTable(
  'tracker_issue_labels',
  {
    issueId: uuid('issue_id')
      .notNull()
      .references(() => trackerIssues.id, { onDelete: 'cascade' }),
    labelId: uuid('label_id')
      .notNull()
      .references(() => trackerLabels.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.issueId, t.labelId] }), index('tracker_issue_labels_label_idx').on(t.labelId)],
);

/**
 * An issue write whose audit row is not written yet (decision 1010). Recorded before the create is sent to
 * the tracker, under the id the issue will have there; the row goes, and the audit row is written, in one
 * transaction once the issue is known to exist. A row left behind (the database failed after the tracker's
 * write, or the answer never came) is settled by the next write or the retry: the issue looked up by its id.
 */
export const trackerIssueIntents = pgTable(
  'tracker_issue_intents',
  {
    /** The issue's id at the tracker, chosen here (Linear's IssueCreateInput.id). */
    id: uuid('id').primaryKey(),
    /** The audit entry to write once the issue exists, without its identifier (not known before). */
    audit: jsonb('audit').$type<IntentAudit>().notNull(),
    /** Filings of an agent: sha256 of agent id and title, so the retry re-uses the id. */
    agentKey: text('agent_key'),
    createdAt: createdAt(),
  },
  (t) => [
    index('tracker_issue_intents_agent_idx').on(t.agentKey),
    index('tracker_issue_intents_created_idx').on(t.createdAt),
  ],
);

export interface IntentAudit {
  action: string;
  actorId: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}
