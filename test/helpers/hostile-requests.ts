// Hostile requests for every operation of an OpenAPI document: a plausible request is built from the
// operation's schemas, then one part of it at a time is made hostile (over-long strings and path
// parameters, huge numbers, NUL and invalid UTF-8, deep nesting, wrong content types, unknown methods).
import { randomUUID } from 'node:crypto';

export interface JsonSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minimum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

export interface Operation {
  method: string;
  /** OpenAPI template, e.g. `/api/admin/users/{user_id}`. */
  path: string;
  secured: boolean;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema: JsonSchema }[];
  body?: JsonSchema;
  /** The documented response statuses. */
  responses: string[];
}

export interface HostileRequest {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        security?: unknown[];
        parameters?: Operation['parameters'];
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        responses?: Record<string, unknown>;
      }
    >
  >;
}

export function operationsOf(document: unknown): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries((document as OpenApi).paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      operations.push({
        method: method.toUpperCase(),
        path,
        secured: (operation.security?.length ?? 0) > 0,
        parameters: operation.parameters ?? [],
        body: operation.requestBody?.content['application/json']?.schema,
        responses: Object.keys(operation.responses ?? {}),
      });
    }
  }
  return operations;
}

const branch = (schema: JsonSchema) => (schema.anyOf ?? schema.oneOf)?.find((s) => s.type !== 'null');
const typeOf = (schema: JsonSchema) => [schema.type].flat().find((t) => t !== 'null');

/** Values known to be valid by name (ids of fixtures, a team, a symbol), used before any sample. */
export type Known = Readonly<Record<string, unknown>>;

/** A value the schema accepts, as far as a schema without patterns can say. */
export function sample(schema: JsonSchema, known: Known = {}, name?: string): unknown {
  if (name !== undefined && known[name] !== undefined) return known[name];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const alternative = branch(schema);
  if (alternative) return sample(alternative, known);
  switch (typeOf(schema)) {
    case 'string':
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'email') return 'hostile@example.com';
      if (schema.format === 'uri') return 'https://example.com/x';
      return 'a'.repeat(Math.max(3, schema.minLength ?? 0));
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items ?? {}, known));
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((field) => [field, sample(schema.properties?.[field] ?? {}, known, field)]),
      );
    default:
      return 'a';
  }
}

/** The sample with every value of one kind replaced, however deep. */
function replaceLeaves(
  value: unknown,
  schema: JsonSchema,
  replace: (schema: JsonSchema, value: unknown) => unknown,
  known: Known,
): unknown {
  const alternative = branch(schema);
  if (alternative && !schema.type) return replaceLeaves(value, alternative, replace, known);
  if (Array.isArray(value)) return value.map((item) => replaceLeaves(item, schema.items ?? {}, replace, known));
  if (value && typeof value === 'object') {
    // Every declared field, not only the required ones, so optional fields are attacked too.
    const fields = {
      ...Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, sample(s, known, k)])),
      ...(value as object),
    };
    return Object.fromEntries(
      Object.entries(fields).map(([key, child]) => [
        key,
        replaceLeaves(child, schema.properties?.[key] ?? {}, replace, known),
      ]),
    );
  }
  return replace(schema, value);
}

const longString = (schema: JsonSchema) => 'x'.repeat(Math.max((schema.maxLength ?? 0) + 1, 5000));
// As text: the JavaScript number would already be rounded. In bodies a mark stands for it until the
// JSON text is written.
const HUGE = '92233720368547758';
const HUGE_MARK = '\u0001huge\u0001';
const jsonText = (value: unknown) => JSON.stringify(value).replaceAll(JSON.stringify(HUGE_MARK), HUGE);

const BODY_ATTACKS: [label: string, replace: (schema: JsonSchema, value: unknown) => unknown][] = [
  ['over-long strings', (schema, value) => (typeof value === 'string' ? longString(schema) : value)],
  [
    'huge numbers',
    (schema, value) => (typeof value === 'number' ? (typeOf(schema) === 'integer' ? HUGE_MARK : 1e308) : value),
  ],
  ['negative huge numbers', (_schema, value) => (typeof value === 'number' ? -1e308 : value)],
  ['NUL characters', (_schema, value) => (typeof value === 'string' ? `a\u0000b` : value)],
];

/** A template's path with each parameter given `value` (others a sample), percent-encoded unless raw. */
function pathWith(operation: Operation, known: Known, values: Record<string, string> = {}): string {
  return operation.path.replace(
    /\{([^}]+)\}/g,
    (_, name: string) =>
      values[name] ??
      encodeURIComponent(String(sample(operation.parameters.find((p) => p.name === name)?.schema ?? {}, known, name))),
  );
}

function queryWith(operation: Operation, known: Known, override?: (schema: JsonSchema) => string): string {
  const pairs = operation.parameters
    .filter((p) => p.in === 'query' && (p.required || override))
    .map(
      (p) =>
        `${encodeURIComponent(p.name)}=${override ? override(p.schema) : encodeURIComponent(String(sample(p.schema, known, p.name)))}`,
    );
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

/** Whether a concrete path is one the template describes. */
export function matchesTemplate(template: string, path: string): boolean {
  const pattern = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${pattern}$`).test(path);
}

/** Every hostile request for one operation; `baseHeaders` authenticate it and fill required headers. */
export function hostileRequests(
  operation: Operation,
  baseHeaders: Record<string, string>,
  otherMethods: string[],
  known: Known = {},
): HostileRequest[] {
  const requests: HostileRequest[] = [];
  const json = { ...baseHeaders, 'content-type': 'application/json' };
  const body = operation.body ? JSON.stringify(sample(operation.body, known)) : undefined;
  const url = (path = pathWith(operation, known), query = queryWith(operation, known)) => `${path}${query}`;
  const add = (label: string, request: Partial<HostileRequest>) =>
    requests.push({
      label,
      method: operation.method,
      url: url(),
      headers: body ? json : baseHeaders,
      payload: body,
      ...request,
    });

  const pathParams = operation.parameters.filter((p) => p.in === 'path');
  for (const [label, raw] of [
    ['over-long path parameters', 'p'.repeat(5000)],
    ['invalid UTF-8 in the path', '%FF%FE'],
    ['NUL in the path', '%00'],
  ]) {
    if (pathParams.length > 0)
      add(label!, { url: url(pathWith(operation, known, Object.fromEntries(pathParams.map((p) => [p.name, raw!])))) });
  }
  if (operation.parameters.some((p) => p.in === 'query')) {
    add('over-long query values', {
      url: url(
        undefined,
        queryWith(operation, known, (s) => longString(s)),
      ),
    });
    add('huge query numbers', {
      url: url(
        undefined,
        queryWith(operation, known, () => HUGE),
      ),
    });
    add('infinite query numbers', {
      url: url(
        undefined,
        queryWith(operation, known, () => '-1e400'),
      ),
    });
    add('invalid UTF-8 in the query', {
      url: url(
        undefined,
        queryWith(operation, known, () => '%FF%FE'),
      ),
    });
    add('NUL in the query', {
      url: url(
        undefined,
        queryWith(operation, known, () => 'a%00b'),
      ),
    });
  }
  const headerParams = operation.parameters.filter((p) => p.in === 'header' && p.name !== 'authorization');
  if (headerParams.length > 0) {
    add('over-long headers', {
      headers: {
        ...(body ? json : baseHeaders),
        ...Object.fromEntries(headerParams.map((p) => [p.name, 'h'.repeat(8000)])),
      },
    });
  }
  if (operation.body) {
    for (const [label, replace] of BODY_ATTACKS) {
      add(`body: ${label}`, {
        payload: jsonText(replaceLeaves(sample(operation.body, known), operation.body, replace, known)),
      });
    }
    add('body: nested 3,230 levels', { payload: `${'{"a":'.repeat(3230)}1${'}'.repeat(3230)}` });
    const bad = body!.includes('"') ? body!.indexOf('"') + 1 : 0;
    add('body: invalid UTF-8', {
      payload: Buffer.concat([
        Buffer.from(body!.slice(0, bad)),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(body!.slice(bad)),
      ]),
    });
    add('body: a list, not an object', { payload: '[]' });
    add('body: text/plain', { headers: { ...baseHeaders, 'content-type': 'text/plain' } });
    add('body: application/xml', { headers: { ...baseHeaders, 'content-type': 'application/xml' }, payload: '<a/>' });
    add('body: form-encoded', {
      headers: { ...baseHeaders, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=1',
    });
  } else if (operation.method !== 'GET') {
    // A body where none is expected is still parsed (GET bodies are not read at all).
    add('unexpected deep body', { headers: json, payload: `${'['.repeat(3230)}${']'.repeat(3230)}` });
  }
  for (const method of otherMethods) add(`method ${method}`, { method, headers: baseHeaders, payload: undefined });
  return requests;
}

/** A plausible request's URL for the operation: sample path parameters and required query values. */
export function plausibleUrl(operation: Operation, known: Known = {}): string {
  return `${pathWith(operation, known)}${queryWith(operation, known)}`;
}

interface Injector {
  inject(options: {
    method: 'POST';
    url: string;
    headers: Record<string, string>;
    payload: object;
  }): PromiseLike<{ statusCode: number; body: string; json<T>(): T }>;
}

/**
 * One of each kind an operation's path can name (an issue, a task, a provider key, a credential, an
 * export), created through the API by an admin from the document's own samples, so operations on them
 * reach their service instead of a 404. Answers `base` with their ids added under the path's names.
 */
export async function withFixtures(
  app: Injector & { swagger(): unknown },
  headers: Record<string, string>,
  base: Known & { userId: string },
): Promise<Known> {
  const operations = operationsOf(app.swagger());
  const create = async (path: string, fields: Record<string, unknown> = {}): Promise<string> => {
    const operation = operations.find((op) => op.method === 'POST' && op.path === path)!;
    const payload = { ...(sample(operation.body!, base) as object), ...fields };
    const response = await app.inject({ method: 'POST', url: path, headers, payload });
    if (response.statusCode >= 300) throw new Error(`${path}: ${response.statusCode} ${response.body}`);
    const created = response.json<{ id?: string; exportId?: string }>();
    return (created.id ?? created.exportId)!;
  };
  return {
    ...base,
    issue_id: await create('/api/v1/tracker/issues'),
    task_id: await create('/api/admin/command-center/tasks'),
    key_id: await create('/api/v1/admin/api-keys'),
    credential_id: await create('/api/exchange/credentials'),
    export_id: await create('/api/admin/users/bulk-action', { action: 'export', userIds: [base.userId] }),
    token_id: await create('/api/auth/tokens'),
  };
}

/** The operation's sample body with every string value, declared optional fields included, replaced by `text`. */
export function bodyWithStrings(operation: Operation, text: string, known: Known = {}): string {
  return JSON.stringify(
    replaceLeaves(
      sample(operation.body!, known),
      operation.body!,
      (_schema, value) => (typeof value === 'string' ? text : value),
      known,
    ),
  );
}

/**
 * A URL of the operation whose path parameters and query values (every one, optional too) are all `raw`, not encoded.
 */
export function urlWithRaw(operation: Operation, raw: string, known: Known = {}): string {
  const pathParams = Object.fromEntries(operation.parameters.filter((p) => p.in === 'path').map((p) => [p.name, raw]));
  return `${pathWith(operation, known, pathParams)}${queryWith(operation, known, () => raw)}`;
}
