// A loopback Linear: POST /graphql with a personal API key in `Authorization` (no Bearer). It parses
// the operations it is sent, answers only the fields selected, applies Linear's filter comparators,
// and can fail as Linear does: RATELIMITED (HTTP 400 with rate-limit headers), AUTHENTICATION_ERROR,
// HTTP 500, or no answer at all.
// The workspace it serves and the resolvers are in linear-workspace.ts, the filter semantics in
// linear-filter.ts.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { GraphQLRequestError, type Operation, parseOperation, project, resolveArgs } from './graphql-lite.ts';
import {
  checkArguments,
  createLinearWorkspace,
  InputError,
  type Issue,
  type Label,
  MUTATIONS,
  type State,
  type Team,
  type User,
} from './linear-workspace.ts';
import { LINEAR_MAX_COMPLEXITY, queryComplexity } from './linear-complexity.ts';
import { createFakeServer } from './loopback-server.ts';

/**
 * `unavailable`: the 503 of Linear's edge during an outage, an HTML page rather than GraphQL. `huge`: a 200
 * whose JSON body runs to HUGE_BODY_BYTES, sent as fast as the client reads it (no content-length).
 */
export type LinearFailure = 'ratelimited' | 'auth' | 'server-error' | 'unavailable' | 'hang' | 'huge';

export const HUGE_BODY_BYTES = 256 * 1024 * 1024;

export interface LinearFake {
  url: string;
  apiKey: string;
  teams: { eng: Team; ops: Team };
  users: User[];
  states: State[];
  labels: Label[];
  issues: Issue[];
  /** Every request that reached the fake: the root fields asked for and the variables. */
  requests: {
    fields: string[];
    variables: Record<string, unknown>;
    authorization: string | undefined;
    /** Linear's complexity points of the query (undefined when it did not parse). */
    complexity?: number;
  }[];
  /** Files `count` issues in the team as `issueCreate` would (titles `<title> <n>`), without a request. */
  fileIssues(team: Team, count: number, fields?: { title?: string; stateId?: string }): void;
  /**
   * Runs `hook` once, after the next request asking `field` has been carried out and before its answer is
   * sent (e.g. to cut the app's database right after Linear's write).
   */
  afterNext(field: string, hook: () => Promise<void> | void): void;
  /** The next `times` requests fail this way. */
  failNext(failure: LinearFailure, times?: number): void;
  /** Bytes of `huge` bodies written so far, and whether each such answer was written to its end. */
  huge: { sent: number; completed: number };
  close(): Promise<void>;
}

export async function startLinearFake(options: { apiKey?: string } = {}): Promise<LinearFake> {
  const apiKey = options.apiKey ?? `lin_api_${randomUUID().replace(/-/g, '')}`;
  const { teams, users, states, labels, issues, resolvers } = createLinearWorkspace();
  const requests: LinearFake['requests'] = [];
  const failures: LinearFailure[] = [];
  const sockets = new Set<Socket>();
  const huge = { sent: 0, completed: 0 };
  const hooks: { field: string; hook: () => Promise<void> | void }[] = [];

  /** A valid GraphQL answer whose one string runs on: written chunk by chunk as the socket drains. */
  async function sendHuge(res: ServerResponse) {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const head = '{"data":{"viewer":{"name":"';
    res.write(head);
    huge.sent += head.length;
    while (huge.sent < HUGE_BODY_BYTES && !res.destroyed) {
      huge.sent += chunk.length;
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    }
    if (res.destroyed) return;
    res.end('"}}}');
    huge.completed += 1;
  }

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
    const seen: LinearFake['requests'][number] = {
      fields: operation.selections.map((f) => f.name),
      variables,
      authorization,
    };
    requests.push(seen);

    const failure = failures.shift();
    if (failure === 'hang') return; // the socket stays open until the client gives up
    if (failure === 'huge') return sendHuge(res);
    if (failure === 'server-error') return send(res, 500, error('Internal server error', 'INTERNAL_SERVER_ERROR'));
    if (failure === 'unavailable') {
      res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'retry-after': '30' });
      return res.end('<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
    }
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
    let complexity: number;
    try {
      complexity = queryComplexity(operation, variables);
      seen.complexity = complexity;
    } catch (e) {
      return send(res, 400, error((e as Error).message, (e as GraphQLRequestError).code));
    }
    if (complexity > LINEAR_MAX_COMPLEXITY) {
      return send(
        res,
        400,
        error(
          `Query too complex: its complexity is ${complexity}, the maximum is ${LINEAR_MAX_COMPLEXITY}`,
          'GRAPHQL_VALIDATION_FAILED',
        ),
      );
    }
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
    const hooked = hooks.findIndex((h) => operation.selections.some((f) => f.name === h.field));
    if (hooked >= 0) await hooks.splice(hooked, 1)[0]!.hook();
    send(
      res,
      200,
      { data },
      {
        'x-ratelimit-requests-limit': '5000',
        'x-ratelimit-requests-remaining': '4999',
        'x-complexity': String(complexity),
      },
    );
  }

  const server = createFakeServer((req, res) => {
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
    teams,
    users,
    states,
    labels,
    issues,
    requests,
    huge,
    fileIssues(team, count, { title = 'Filed', stateId } = {}) {
      for (let n = 1; n <= count; n++)
        resolvers.issueCreate!({ input: { teamId: team.id, title: `${title} ${n}`, stateId } });
    },
    afterNext(field, hook) {
      hooks.push({ field, hook });
    },
    failNext(failure, times = 1) {
      for (let i = 0; i < times; i++) failures.push(failure);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
