// The workspace the Linear fake serves: its teams, workflow states, users, labels and issues, the
// input types and arguments its schema defines, and the resolvers of the queries and mutations it
// answers. Mutations change the workspace, so a test reads what the app did from it.
import { randomUUID } from 'node:crypto';
import { GraphQLRequestError } from './graphql-lite.ts';
import { matches } from './linear-filter.ts';

export interface Team {
  id: string;
  key: string;
  name: string;
}
export interface State {
  id: string;
  name: string;
  type: string;
  position: number;
  color: string;
  team: Team;
}
export interface Label {
  id: string;
  name: string;
  color: string;
  team: { id: string } | null;
}
export interface User {
  id: string;
  name: string;
  displayName: string;
  email: string;
}
export interface Issue {
  id: string;
  number: number;
  identifier: string;
  title: string;
  description: string | null;
  priority: number;
  estimate: number | null;
  dueDate: string | null;
  createdAt: string;
  updatedAt: string;
  state: State;
  team: Team;
  assignee: User | null;
  labels: Label[];
  project: { id: string; name: string } | null;
  parent: Issue | null;
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A refusal of the input, answered as Linear's INVALID_INPUT. */
export class InputError extends Error {}

export const MUTATIONS = new Set(['issueLabelCreate', 'issueCreate', 'issueUpdate']);

/**
 * The input types' fields and each field's arguments that this fake models. Linear's GraphQL
 * refuses anything its schema does not define (graphql-js's wording), so an app that forwards a
 * field it should not is refused here too, not silently served.
 */
const INPUT_FIELDS: Record<string, readonly string[]> = {
  IssueCreateInput: [
    'id',
    'teamId',
    'title',
    'description',
    'priority',
    'estimate',
    'dueDate',
    'stateId',
    'assigneeId',
    'labelIds',
    'projectId',
    'parentId',
  ],
  IssueUpdateInput: [
    'title',
    'description',
    'priority',
    'estimate',
    'dueDate',
    'stateId',
    'assigneeId',
    'labelIds',
    'projectId',
    'parentId',
  ],
  IssueLabelCreateInput: ['name', 'teamId', 'color', 'description'],
};
const ARGUMENTS: Record<string, { args: readonly string[]; input?: string }> = {
  viewer: { args: [] },
  workflowStates: { args: ['filter', 'first'] },
  issueLabels: { args: ['filter', 'first'] },
  issueLabelCreate: { args: ['input'], input: 'IssueLabelCreateInput' },
  issueCreate: { args: ['input'], input: 'IssueCreateInput' },
  issueUpdate: { args: ['id', 'input'], input: 'IssueUpdateInput' },
  issue: { args: ['id'] },
  issues: { args: ['filter', 'first', 'after', 'orderBy'] },
};
export function checkArguments(field: string, args: Record<string, unknown>) {
  const known = ARGUMENTS[field];
  if (!known) return;
  for (const name of Object.keys(args)) {
    if (!known.args.includes(name))
      throw new GraphQLRequestError(`Unknown argument "${name}" on field "${field}".`, 'GRAPHQL_VALIDATION_FAILED');
  }
  const input = args.input as Record<string, unknown> | undefined;
  if (!known.input || !input) return;
  for (const name of Object.keys(input)) {
    if (!INPUT_FIELDS[known.input]!.includes(name)) {
      throw new GraphQLRequestError(
        `Variable "$input" got invalid value; Field "${name}" is not defined by type "${known.input}".`,
        'GRAPHQL_VALIDATION_FAILED',
      );
    }
  }
}

export type Resolvers = Record<string, (args: Record<string, unknown>) => unknown>;

export interface LinearWorkspace {
  teams: { eng: Team; ops: Team };
  users: User[];
  states: State[];
  labels: Label[];
  issues: Issue[];
  resolvers: Resolvers;
}

/** Two teams (ENG with Linear's default workflow, OPS with two states), one user, two labels, no issues. */
export function createLinearWorkspace(): LinearWorkspace {
  const eng: Team = { id: randomUUID(), key: 'ENG', name: 'Engineering' };
  const ops: Team = { id: randomUUID(), key: 'OPS', name: 'Operations' };
  const state = (team: Team, name: string, type: string, position: number): State => ({
    id: randomUUID(),
    name,
    type,
    position,
    color: '#888888',
    team,
  });
  const states = [
    state(eng, 'Triage', 'triage', 0),
    state(eng, 'Backlog', 'backlog', 1),
    state(eng, 'Todo', 'unstarted', 2),
    state(eng, 'In Progress', 'started', 3),
    state(eng, 'In Review', 'started', 4),
    state(eng, 'Done', 'completed', 5),
    state(eng, 'Canceled', 'canceled', 6),
    state(ops, 'Backlog', 'backlog', 0),
    state(ops, 'Done', 'completed', 1),
  ];
  const users: User[] = [{ id: randomUUID(), name: 'Ada Lovelace', displayName: 'ada', email: 'ada@example.com' }];
  const labels: Label[] = [
    { id: randomUUID(), name: 'Bug', color: '#eb5757', team: null },
    { id: randomUUID(), name: 'ops-only', color: '#4ea7fc', team: { id: ops.id } },
  ];
  const issues: Issue[] = [];
  const counters = new Map<string, number>();

  const view = (issue: Issue) => ({
    ...issue,
    priorityLabel: ['No priority', 'Urgent', 'High', 'Medium', 'Low'][issue.priority],
    url: `https://linear.app/fake/issue/${issue.identifier}`,
    labels: { nodes: issue.labels },
    parent: issue.parent ? { id: issue.parent.id, identifier: issue.parent.identifier } : null,
  });
  const findIssue = (ref: string) => issues.find((i) => i.id === ref || i.identifier === ref.toUpperCase());
  const requireIssue = (ref: string) => findIssue(ref) ?? fail('Entity not found: Issue');
  const fail = (message: string): never => {
    throw new InputError(message);
  };
  const checkInt = (input: Record<string, unknown>, field: string) => {
    const value = input[field];
    if (value !== undefined && value !== null && !Number.isInteger(value)) {
      throw new GraphQLRequestError(
        `Variable "$input" got invalid value ${String(value)} at "input.${field}"; Int ` +
          'cannot represent non-integer value',
        'GRAPHQL_VALIDATION_FAILED',
      );
    }
  };

  /** Applies IssueCreateInput / IssueUpdateInput fields; `null` clears. */
  function apply(issue: Issue, input: Record<string, unknown>) {
    checkInt(input, 'priority');
    checkInt(input, 'estimate');
    if (input.title !== undefined) issue.title = String(input.title);
    if (input.description !== undefined) issue.description = input.description as string | null;
    if (input.priority !== undefined) {
      if ((input.priority as number) < 0 || (input.priority as number) > 4) fail('priority must be between 0 and 4');
      issue.priority = input.priority as number;
    }
    if (input.estimate !== undefined) issue.estimate = input.estimate as number | null;
    if (input.dueDate !== undefined) {
      if (input.dueDate !== null && !/^\d{4}-\d{2}-\d{2}$/.test(String(input.dueDate)))
        fail('dueDate must be a TimelessDate');
      issue.dueDate = input.dueDate as string | null;
    }
    if (input.stateId !== undefined) {
      issue.state =
        states.find((s) => s.id === input.stateId && s.team.id === issue.team.id) ??
        fail('Entity not found: WorkflowState');
    }
    if (input.assigneeId !== undefined) {
      issue.assignee =
        input.assigneeId === null
          ? null
          : (users.find((u) => u.id === input.assigneeId) ?? fail('Entity not found: User'));
    }
    if (input.labelIds !== undefined) {
      issue.labels = (input.labelIds as string[]).map(
        (id) => labels.find((l) => l.id === id) ?? fail('Entity not found: IssueLabel'),
      );
    }
    if (input.projectId !== undefined)
      issue.project = input.projectId === null ? null : { id: String(input.projectId), name: 'Project' };
    if (input.parentId !== undefined)
      issue.parent = input.parentId === null ? null : requireIssue(String(input.parentId));
    issue.updatedAt = new Date().toISOString();
  }
  const resolvers: Resolvers = {
    viewer: () => users[0],
    workflowStates: ({ filter, first }) => ({
      nodes: states.filter((s) => matches(s as never, filter as never)).slice(0, (first as number) ?? 50),
    }),
    issueLabels: ({ filter, first }) => ({
      nodes: labels.filter((l) => matches(l as never, filter as never)).slice(0, (first as number) ?? 50),
    }),
    issueLabelCreate: ({ input }) => {
      const { name, teamId } = input as { name: string; teamId?: string };
      if (teamId && teamId !== eng.id && teamId !== ops.id) fail('Entity not found: Team');
      const clash = labels.find(
        (l) => l.name.toLowerCase() === name.toLowerCase() && (l.team === null || l.team.id === teamId),
      );
      if (clash) fail('Duplicate label name');
      const label: Label = { id: randomUUID(), name, color: '#6b7280', team: teamId ? { id: teamId } : null };
      labels.push(label);
      return { success: true, lastSyncId: labels.length, issueLabel: label };
    },
    issueCreate: ({ input }) => {
      const fields = input as Record<string, unknown>;
      const team = [eng, ops].find((t) => t.id === fields.teamId) ?? fail('Entity not found: Team');
      if (!fields.title) fail('title must not be empty');
      // Linear takes the client's id ("The identifier in UUID v4 format. If none is provided, the backend will
      // generate one."); an id already taken is refused, and nothing is created. Its wording is the fake's own.
      if (fields.id !== undefined && !UUID_V4.test(String(fields.id))) fail('id must be a UUID v4');
      if (fields.id !== undefined && issues.some((i) => i.id === fields.id))
        fail('An issue with this id already exists');
      const number = (counters.get(team.id) ?? 0) + 1;
      counters.set(team.id, number);
      const now = new Date().toISOString();
      const backlog = states
        .filter((s) => s.team.id === team.id && s.type === 'backlog')
        .sort((a, b) => a.position - b.position)[0]!;
      const issue: Issue = {
        id: (fields.id as string | undefined) ?? randomUUID(),
        number,
        identifier: `${team.key}-${number}`,
        title: '',
        description: null,
        priority: 0,
        estimate: null,
        dueDate: null,
        createdAt: now,
        updatedAt: now,
        state: backlog,
        team,
        assignee: null,
        labels: [],
        project: null,
        parent: null,
      };
      const { id: _id, ...rest } = fields;
      apply(issue, rest);
      issue.updatedAt = now;
      issues.push(issue);
      return { success: true, lastSyncId: issues.length, issue: view(issue) };
    },
    issueUpdate: ({ id, input }) => {
      const issue = requireIssue(String(id));
      apply(issue, input as Record<string, unknown>);
      return { success: true, lastSyncId: issues.length, issue: view(issue) };
    },
    issue: ({ id }) => view(requireIssue(String(id))),
    issues: ({ filter, first, after, orderBy }) => {
      const limit = (first as number | undefined) ?? 50;
      if (limit > 250) fail('first must be at most 250');
      const key = orderBy === 'updatedAt' ? 'updatedAt' : 'createdAt';
      const filtered = issues
        .filter((i) => matches(i as never, filter as never))
        .sort((a, b) => b[key].localeCompare(a[key]) || b.number - a.number);
      const start = after ? filtered.findIndex((i) => i.id === after) + 1 : 0;
      const page = filtered.slice(start, start + limit);
      return {
        nodes: page.map(view),
        pageInfo: { hasNextPage: start + limit < filtered.length, endCursor: page.at(-1)?.id ?? null },
      };
    },
  };

  return { teams: { eng, ops }, users, states, labels, issues, resolvers };
}
