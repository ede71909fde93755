// A loopback Linear: POST /graphql with a personal API key in `Authorization` (no Bearer). It parses
// the operations it is sent, answers only the fields selected, applies Linear's filter comparators,
// and can fail as Linear does: RATELIMITED (HTTP 400 with rate-limit headers), AUTHENTICATION_ERROR,
// HTTP 500, or no answer at all.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { GraphQLRequestError, type Operation, parseOperation, project, resolveArgs } from './graphql-lite.ts';

interface Team {
  id: string;
  key: string;
  name: string;
}
interface State {
  id: string;
  name: string;
  type: string;
  position: number;
  color: string;
  team: Team;
}
interface Label {
  id: string;
  name: string;
  color: string;
  team: { id: string } | null;
}
interface User {
  id: string;
  name: string;
  displayName: string;
  email: string;
}
interface Issue {
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

export type LinearFailure = 'ratelimited' | 'auth' | 'server-error' | 'hang';

export interface LinearFake {
  url: string;
  apiKey: string;
  teams: { eng: Team; ops: Team };
  users: User[];
  states: State[];
  labels: Label[];
  issues: Issue[];
  /** Every request that reached the fake: the root fields asked for and the variables. */
  requests: { fields: string[]; variables: Record<string, unknown>; authorization: string | undefined }[];
  /** The next `times` requests fail this way. */
  failNext(failure: LinearFailure, times?: number): void;
  close(): Promise<void>;
}

class InputError extends Error {}

const MUTATIONS = new Set(['issueLabelCreate', 'issueCreate', 'issueUpdate']);

const COMPARATORS = new Set([
  'eq',
  'neq',
  'in',
  'nin',
  'eqIgnoreCase',
  'neqIgnoreCase',
  'contains',
  'containsIgnoreCase',
  'startsWith',
  'null',
]);

function compare(value: unknown, comparator: Record<string, unknown>): boolean {
  const text = typeof value === 'string' ? value.toLowerCase() : value;
  return Object.entries(comparator).every(([op, expected]) => {
    switch (op) {
      case 'eq':
        return value === expected;
      case 'neq':
        return value !== expected;
      case 'in':
        return (expected as unknown[]).includes(value);
      case 'nin':
        return !(expected as unknown[]).includes(value);
      case 'eqIgnoreCase':
        return text === String(expected).toLowerCase();
      case 'neqIgnoreCase':
        return text !== String(expected).toLowerCase();
      case 'contains':
        return typeof value === 'string' && value.includes(String(expected));
      case 'containsIgnoreCase':
        return typeof text === 'string' && text.includes(String(expected).toLowerCase());
      case 'startsWith':
        return typeof value === 'string' && value.startsWith(String(expected));
      case 'null':
        return (value === null) === expected;
      default:
        throw new GraphQLRequestError(
          `Field "${op}" is not defined by the comparator type.`,
          'GRAPHQL_VALIDATION_FAILED',
        );
    }
  });
}

/** Linear's filter semantics: comparators, nested relations, `some`/`every` on collections, and/or. */
function matches(entity: Record<string, unknown>, filter: Record<string, unknown> | undefined | null): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, condition]) => {
    if (condition === undefined || condition === null) return true;
    if (key === 'and') return (condition as Record<string, unknown>[]).every((f) => matches(entity, f));
    if (key === 'or') return (condition as Record<string, unknown>[]).some((f) => matches(entity, f));
    if (!(key in entity))
      throw new GraphQLRequestError(`Field "${key}" is not defined by the filter type.`, 'GRAPHQL_VALIDATION_FAILED');
    const value = entity[key];
    const cond = condition as Record<string, unknown>;
    if (Object.keys(cond).every((k) => COMPARATORS.has(k))) return compare(value, cond);
    if (Array.isArray(value)) {
      const { some, every, ...direct } = cond;
      const items = value as Record<string, unknown>[];
      return (
        (!some || items.some((item) => matches(item, some as Record<string, unknown>))) &&
        (!every || items.every((item) => matches(item, every as Record<string, unknown>))) &&
        (Object.keys(direct).length === 0 || items.some((item) => matches(item, direct)))
      );
    }
    if (value === null) return cond.null === true;
    return matches(value as Record<string, unknown>, cond);
  });
}

export async function startLinearFake(options: { apiKey?: string } = {}): Promise<LinearFake> {
  const apiKey = options.apiKey ?? `lin_api_${randomUUID().replace(/-/g, '')}`;
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
  const requests: LinearFake['requests'] = [];
  const failures: LinearFailure[] = [];
  const sockets = new Set<Socket>();

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
        `Variable "$input" got invalid value ${String(value)} at "input.${field}"; Int cannot represent non-integer value`,
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

  /**
   * The input types' fields and each field's arguments that this fake models. Linear's GraphQL
   * refuses anything its schema does not define (graphql-js's wording), so an app that forwards a
   * field it should not is refused here too, not silently served.
   */
  const INPUT_FIELDS: Record<string, readonly string[]> = {
    IssueCreateInput: [
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
  function checkArguments(field: string, args: Record<string, unknown>) {
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

  const resolvers: Record<string, (args: Record<string, unknown>) => unknown> = {
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
      const number = (counters.get(team.id) ?? 0) + 1;
      counters.set(team.id, number);
      const now = new Date().toISOString();
      const backlog = states
        .filter((s) => s.team.id === team.id && s.type === 'backlog')
        .sort((a, b) => a.position - b.position)[0]!;
      const issue: Issue = {
        id: randomUUID(),
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
      apply(issue, fields);
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

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  }
  const error = (message: string, code: string, userPresentableMessage?: string) => ({
    errors: [{ message, extensions: { code, userPresentableMessage: userPresentableMessage ?? message } }],
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/graphql') return send(res, 404, { error: 'not found' });
    const authorization = req.headers.authorization;
    let request: { query?: string; variables?: Record<string, unknown> };
    try {
      request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(res, 400, error('Body is not JSON', 'BAD_USER_INPUT'));
    }
    const variables = request.variables ?? {};
    let operation: Operation;
    try {
      operation = parseOperation(request.query ?? '');
    } catch (e) {
      requests.push({ fields: [], variables, authorization });
      return send(res, 400, error((e as Error).message, (e as GraphQLRequestError).code ?? 'GRAPHQL_PARSE_FAILED'));
    }
    requests.push({ fields: operation.selections.map((f) => f.name), variables, authorization });

    const failure = failures.shift();
    if (failure === 'hang') return; // the socket stays open until the client gives up
    if (failure === 'server-error') return send(res, 500, error('Internal server error', 'INTERNAL_SERVER_ERROR'));
    if (failure === 'ratelimited') {
      return send(res, 400, error('Rate limit exceeded', 'RATELIMITED', 'You have exceeded the rate limit.'), {
        'x-ratelimit-requests-limit': '5000',
        'x-ratelimit-requests-remaining': '0',
        'x-ratelimit-requests-reset': String(Date.now() + 30_000),
      });
    }
    if (failure === 'auth' || authorization !== apiKey) {
      return send(
        res,
        400,
        error(
          'Authentication required, not authenticated',
          'AUTHENTICATION_ERROR',
          'You need to authenticate to access this operation.',
        ),
      );
    }

    const data: Record<string, unknown> = {};
    try {
      for (const field of operation.selections) {
        const resolver = resolvers[field.name];
        const root = operation.type === 'mutation' ? 'Mutation' : 'Query';
        if (!resolver || MUTATIONS.has(field.name) !== (root === 'Mutation')) {
          throw new GraphQLRequestError(
            `Cannot query field "${field.name}" on type "${root}".`,
            'GRAPHQL_VALIDATION_FAILED',
          );
        }
        const args = resolveArgs(operation, field, variables);
        checkArguments(field.name, args);
        data[field.alias ?? field.name] = project(resolver(args), field.selections, field.name);
      }
    } catch (e) {
      if (e instanceof InputError)
        return send(res, 400, { data: null, ...error(e.message, 'INVALID_INPUT', e.message) });
      if (e instanceof GraphQLRequestError) return send(res, 400, error(e.message, e.code));
      throw e;
    }
    send(res, 200, { data }, { 'x-ratelimit-requests-limit': '5000', 'x-ratelimit-requests-remaining': '4999' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => send(res, 500, error(String(e), 'INTERNAL_SERVER_ERROR')));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${port}/graphql`,
    apiKey,
    teams: { eng, ops },
    users,
    states,
    labels,
    issues,
    requests,
    failNext(failure, times = 1) {
      for (let i = 0; i < times; i++) failures.push(failure);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
