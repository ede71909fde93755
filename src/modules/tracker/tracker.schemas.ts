import { Type, type Static } from 'typebox';
import { DateTime, Nullable, StringEnum } from '../../platform/http/schemas.ts';

// Bounds the spec leaves open are recorded in docs/decisions/052-tracker-api-shape.md.
const Ref = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
const Title = Type.String({ minLength: 1, maxLength: 255, description: 'Issue title, 1 to 255 characters.' });
const Description = (description = 'Markdown body, up to 100,000 characters.') =>
  Type.String({ maxLength: 100_000, description });
const State = (fallback?: string) =>
  Type.String({
    minLength: 1,
    maxLength: 64,
    ...(fallback === undefined ? {} : { default: fallback }),
    description:
      'A workflow state of the team by name (case-insensitive, e.g. `In Progress`) or by type (`backlog`, ' +
      '`unstarted`, `started`, `completed`, `canceled`; the first state of that type).',
  });
const Priority = (fallback?: number) =>
  Type.Integer({
    minimum: 0,
    maximum: 4,
    ...(fallback === undefined ? {} : { default: fallback }),
    description: '0 no priority, 1 urgent, 2 high, 3 medium, 4 low.',
  });
const LabelIds = Type.Array(Ref('Label id.'), {
  maxItems: 50,
  description: 'Label ids; replaces the labels of the issue. At most 50.',
});
const Estimate = (description = 'Estimate in points, a whole number 0 to 1000 (Linear accepts no fractions).') =>
  Type.Integer({ minimum: 0, maximum: 1000, description });
const DueDate = (description = 'Due date, `YYYY-MM-DD`.') => Type.String({ format: 'date', description });

export const IssueCreateBody = Type.Object({
  teamId: Ref('Team id (UUID). The local tracker seeds one team; its id is in GET /api/v1/tracker/health.'),
  title: Title,
  description: Type.Optional(Description()),
  state: Type.Optional(State('backlog')),
  priority: Type.Optional(Priority(0)),
  projectId: Type.Optional(Ref('Project id. The local tracker keeps the reference without checking it.')),
  assigneeId: Type.Optional(
    Ref('Assignee: a Linear user id, or with the local tracker the id of a user of this platform.'),
  ),
  parentId: Type.Optional(Ref('Parent issue id or identifier.')),
  labelIds: Type.Optional(LabelIds),
  estimate: Type.Optional(Estimate()),
  dueDate: Type.Optional(DueDate()),
});
export type IssueCreateBody = Static<typeof IssueCreateBody>;

const clearable = 'Send null to clear it.';
export const IssuePatchBody = Type.Object({
  title: Type.Optional(Title),
  description: Type.Optional(Nullable(Description(`Markdown body. ${clearable}`))),
  state: Type.Optional(State()),
  priority: Type.Optional(Priority()),
  assigneeId: Type.Optional(Nullable(Ref(`Assignee id. ${clearable}`))),
  projectId: Type.Optional(Nullable(Ref(`Project id. ${clearable}`))),
  parentId: Type.Optional(Nullable(Ref(`Parent issue id or identifier. ${clearable}`))),
  labelIds: Type.Optional(LabelIds),
  estimate: Type.Optional(Nullable(Estimate(`Estimate in points, 0 to 1000. ${clearable}`))),
  dueDate: Type.Optional(Nullable(DueDate(`Due date, YYYY-MM-DD. ${clearable}`))),
});
export type IssuePatchBody = Static<typeof IssuePatchBody>;

export const AgentIssueBody = Type.Object({
  title: Title,
  description: Type.Optional(Description()),
  agent_id: Type.String({
    minLength: 1,
    maxLength: 100,
    description: "Who files: the agent's stable id. With the title it identifies a duplicate.",
  }),
  agent_type: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 50,
      default: 'custom',
      description: 'Kind of agent; the issue gets the label `agent:<agent_type>`.',
    }),
  ),
  priority: Type.Optional(Priority(2)),
  label_names: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 80 }), {
      maxItems: 20,
      description: 'Label names (case-insensitive); missing labels are created. At most 20.',
    }),
  ),
});
export type AgentIssueBody = Static<typeof AgentIssueBody>;

export const IssueListQuery = Type.Object({
  states: Type.Optional(
    Type.String({
      maxLength: 500,
      description: 'Comma-separated state names or types, e.g. `Todo,started`; an issue matching any is listed.',
    }),
  ),
  assignee_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only issues assigned to this user.' })),
  label: Type.Optional(
    Type.String({ minLength: 1, maxLength: 80, description: 'Only issues with this label name (case-insensitive).' }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 250,
      default: 25,
      description: "At most this many issues, 1 to 250 (Linear's page limit).",
    }),
  ),
});
export type IssueListQuery = Static<typeof IssueListQuery>;

export const IssueParams = Type.Object({
  issue_id: Type.String({ minLength: 1, maxLength: 64, description: 'Issue UUID or identifier, e.g. `ENG-42`.' }),
});

const Named = (what: string) =>
  Type.Object({ id: Type.String({ description: `${what} id.` }), name: Type.String({ description: `${what} name.` }) });

const issueProperties = {
  id: Type.String({ description: 'Issue id (UUID).' }),
  identifier: Type.String({ description: 'Team key and number, e.g. `ENG-42`.' }),
  title: Type.String({ description: 'Title.' }),
  description: Nullable(Type.String({ description: 'Markdown body.' })),
  priority: Type.Integer({ description: '0 no priority, 1 urgent, 2 high, 3 medium, 4 low.' }),
  priorityLabel: Type.String({ description: '`No priority`, `Urgent`, `High`, `Medium` or `Low`.' }),
  state: Type.Object(
    {
      id: Type.String({ description: 'State id.' }),
      name: Type.String({ description: 'State name, e.g. `In Progress`.' }),
      type: Type.String({
        description: '`triage` (Linear only), `backlog`, `unstarted`, `started`, `completed` or `canceled`.',
      }),
    },
    { description: 'Workflow state.' },
  ),
  team: Type.Object(
    {
      id: Type.String({ description: 'Team id.' }),
      key: Type.String({ description: 'Team key, the prefix of identifiers.' }),
      name: Type.String({ description: 'Team name.' }),
    },
    { description: 'Team.' },
  ),
  assignee: Nullable(Named('User')),
  labels: Type.Array(Named('Label'), { description: 'Labels, by name.' }),
  estimate: Nullable(Type.Number({ description: 'Estimate in points.' })),
  dueDate: Nullable(Type.String({ description: 'Due date, YYYY-MM-DD.' })),
  projectId: Nullable(Type.String({ description: 'Project id.' })),
  parentId: Nullable(Type.String({ description: 'Parent issue id.' })),
  agentId: Nullable(
    Type.String({ description: 'The agent that filed the issue through POST /api/v1/tracker/issues/agent.' }),
  ),
  url: Type.String({ description: "Linear's web address of the issue; with the local tracker, its path in this API." }),
  createdAt: DateTime('When the issue was created.'),
  updatedAt: DateTime('When the issue last changed.'),
};

export const Issue = Type.Object(issueProperties, {
  description: "An issue, shaped like Linear's whichever backend answers.",
});

export const AgentIssue = Type.Object(
  {
    ...issueProperties,
    deduplicated: Type.Boolean({
      description:
        'True when an open issue of this agent with this title existed and is returned instead of a new one.',
    }),
  },
  { description: 'The filed issue, or the open one it duplicates.' },
);

export const IssueCreateHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The same key answers the issue it created (200) and creates nothing again.',
    }),
  ),
});

export const IssueList = Type.Object({
  issues: Type.Array(Issue, { description: 'Most recently updated first.' }),
  count: Type.Integer({ description: 'Number of issues in this answer.' }),
  has_more: Type.Boolean({ description: 'Whether more issues match than `limit` allowed.' }),
});

export const TrackerHealth = Type.Object({
  backend: StringEnum(['local', 'linear'] as const, { description: 'Which tracker answers (TRACKER_BACKEND).' }),
  reachable: Type.Boolean({ description: 'Whether the tracker answered the check.' }),
  latency_ms: Nullable(Type.Number({ description: 'Round trip of the check in milliseconds; null when it failed.' })),
  detail: Type.String({ description: 'What the check found, in one sentence.' }),
  default_team_id: Nullable(
    Type.String({ description: 'Team of agent-filed issues (TRACKER_DEFAULT_TEAM_ID, or the seeded local team).' }),
  ),
});
export type TrackerHealth = Static<typeof TrackerHealth>;
