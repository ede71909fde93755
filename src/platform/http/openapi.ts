// The finishing touches of the generated OpenAPI document (decision 100): what @fastify/swagger
// cannot infer from the route schemas, applied in one place so that every module's routes get them.
// - A parameter with a default is optional, as FastAPI documents it (TypeBox lists every
//   non-Optional field in `required`, and ajv fills the default before checking).
// - The answers the framework gives before a route's own code runs are documented on every
//   operation they can reach (decisions 096 and 130); a GET that takes no input documents no 422.
// - An operation that declares no security is public: `security: []`.
// - A header that an operation's security scheme names (the scheduled-job secret, a webhook
//   signature) is documented by the scheme, not as a loose header parameter.
// - A success response without a description of its own is described by the operation's summary.
// - Every schema with a `title` becomes one entry of `components.schemas`, referenced by `$ref`.
// - An error answer that several operations give is one entry of `components.responses`, referenced by
//   `$ref` (decision 470): swagger-ui's OpenAPI 3.1 reader walks the whole document each time it
//   resolves a part of it, so the document's size is the docs page's speed.

import { Detail, ValidationError } from './schemas.ts';
import { shareErrorResponses, type Response } from './openapi-responses.ts';

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: { default?: unknown };
}

interface Operation {
  summary?: string;
  parameters?: Parameter[];
  security?: Record<string, string[]>[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, Response>;
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, Operation>>;
  components?: {
    schemas?: Record<string, unknown>;
    responses?: Record<string, Response>;
    securitySchemes?: Record<string, { type: string; in?: string; name?: string }>;
  };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

const errorResponse = (description: string, schema: unknown): Response => ({
  description,
  content: { 'application/json': { schema } },
});

/** Methods whose requests have no body the server reads. */
const BODILESS = new Set(['get', 'head']);

/**
 * Statuses the framework answers before a route runs, when an operation can receive each, and the
 * name of their one entry in `components.responses`.
 */
const FRAMEWORK_RESPONSES: [
  status: string,
  name: string,
  applies: (operation: Operation, method: string) => boolean,
  response: Response,
][] = [
  // Node's HTTP parser answers these before there is a request, for any operation (decision 130).
  [
    '400',
    'MalformedRequest',
    () => true,
    errorResponse(
      'Malformed request: a request line, header or URL the server cannot read (a control character in a ' +
        'header value, a URL that is not percent-encoded UTF-8)',
      Detail,
    ),
  ],
  // A body is read whenever the method allows one, declared or not (a POST that takes none still
  // refuses one over the limit, or of a type no parser reads).
  [
    '413',
    'RequestBodyTooLarge',
    (op, method) => op.requestBody !== undefined || !BODILESS.has(method),
    errorResponse('Request body too large', Detail),
  ],
  [
    '415',
    'UnsupportedMediaType',
    (op, method) => op.requestBody !== undefined || !BODILESS.has(method),
    errorResponse('Unsupported media type', Detail),
  ],
  [
    '422',
    'ValidationError',
    (op) => op.requestBody !== undefined || (op.parameters ?? []).length > 0,
    errorResponse('Validation Error', ValidationError),
  ],
  [
    '431',
    'RequestHeaderFieldsTooLarge',
    () => true,
    errorResponse('Request header fields too large (over 16 KiB)', Detail),
  ],
];

/** A way of proving who calls, as `components.securitySchemes` lists it. */
export type SecurityScheme =
  | { type: 'apiKey'; in: 'header' | 'query'; name: string; description: string }
  | { type: 'http'; scheme: 'bearer'; bearerFormat?: string; description: string };

/** A secret or signature sent in a header of this name. */
export const headerScheme = (name: string, description: string): SecurityScheme => ({
  type: 'apiKey',
  in: 'header',
  name,
  description,
});

/** A secret sent as `Authorization: Bearer <secret>`. */
export const bearerScheme = (description: string): SecurityScheme => ({ type: 'http', scheme: 'bearer', description });

/** The platform's own ways a caller proves who it is, by the name operations refer to in `security`. */
export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'The `access_token` of `POST /api/auth/login` (or `/api/auth/refresh`), valid 15 minutes unless ' +
      'ACCESS_TOKEN_TTL_SECONDS says otherwise.',
  },
  scheduledJobSecret: headerScheme(
    'x-scheduled-job-secret',
    'The shared secret `SCHEDULED_JOB_SECRET`; a missing header answers 422, a wrong one 401.',
  ),
  streamTicket: {
    type: 'apiKey',
    in: 'query',
    name: 'ticket',
    description:
      'A single-use ticket from `POST /api/stream/ticket` (valid 60 s), for EventSource clients that cannot ' +
      'send the Authorization header.',
  },
} as const satisfies Record<string, SecurityScheme>;

export type SecuritySchemeName = keyof typeof SECURITY_SCHEMES;

/**
 * Where the document has always listed a platform scheme among those modules contribute: after the
 * one named. Kept so that contributed schemes (each webhook provider declares its own) leave the
 * document byte-identical (decision 245); a scheme not listed here, or whose neighbour is gone,
 * comes after every contributed one.
 */
const LISTED_AFTER: Partial<Record<SecuritySchemeName, string>> = { streamTicket: 'authHookSignature' };

/** The document's `components.securitySchemes`: the platform's and the modules' contributed ones. */
export function securitySchemesOf(
  contributed: Readonly<Record<string, SecurityScheme>>,
): Readonly<Record<string, SecurityScheme>> {
  const { bearerAuth, scheduledJobSecret, ...placed } = SECURITY_SCHEMES;
  const schemes: Record<string, SecurityScheme> = { bearerAuth, scheduledJobSecret };
  const pending = new Map<string, SecurityScheme>(Object.entries(placed));
  for (const [name, scheme] of Object.entries(contributed)) {
    if (name in SECURITY_SCHEMES) throw new Error(`security scheme ${name} is declared twice`);
    schemes[name] = scheme;
    for (const [own, after] of Object.entries(LISTED_AFTER)) {
      const ownScheme = pending.get(own);
      if (after === name && ownScheme) {
        schemes[own] = ownScheme;
        pending.delete(own);
      }
    }
  }
  for (const [name, scheme] of pending) schemes[name] = scheme;
  return schemes;
}

/** An operation's `security`: any one of the given schemes (a module's own: the names it declared). */
export const securityOf = (...schemes: SecuritySchemeName[]): Record<string, string[]>[] =>
  schemes.map((scheme) => ({ [scheme]: [] }));

/** Replaces every titled schema under `node` by a reference, collecting it into `schemas`. */
function hoistTitled(node: unknown, schemas: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistTitled(item, schemas));
  if (!node || typeof node !== 'object') return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node)) copy[key] = hoistTitled(value, schemas);
  const title = copy.title;
  if (typeof title !== 'string' || !/^[A-Z][A-Za-z0-9]*$/.test(title)) return copy;
  const known = schemas[title];
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(copy)) {
    throw new Error(`two different schemas are titled ${title}; give one of them another title`);
  }
  schemas[title] = copy;
  return { $ref: `#/components/schemas/${title}` };
}

function finishOperation(
  method: string,
  operation: Operation,
  document: OpenApiDocument,
  schemas: Record<string, unknown>,
): void {
  operation.security ??= [];
  // A GET with no parameter (a header its security scheme names counts: it is still validated) and
  // no body takes no input, so it cannot answer 422 (errorResponses lists one on every route).
  const takesInput =
    (operation.parameters ?? []).length > 0 || operation.requestBody !== undefined || !BODILESS.has(method);
  if (!takesInput) delete operation.responses?.['422'];
  const schemeHeaders = new Set(
    operation.security.flatMap((requirement) =>
      Object.keys(requirement).flatMap((name) => {
        const scheme = document.components?.securitySchemes?.[name];
        if (scheme?.type === 'http') return ['authorization'];
        return scheme?.type === 'apiKey' && scheme.in === 'header' && scheme.name ? [scheme.name.toLowerCase()] : [];
      }),
    ),
  );
  operation.parameters = operation.parameters?.filter(
    (parameter) => !(parameter.in === 'header' && schemeHeaders.has(parameter.name.toLowerCase())),
  );
  if (operation.parameters?.length === 0) delete operation.parameters;
  for (const parameter of operation.parameters ?? []) {
    if (parameter.required && parameter.schema?.default !== undefined) parameter.required = false;
  }
  operation.responses ??= {};
  for (const [status, response] of Object.entries(operation.responses)) {
    if ('$ref' in response) continue;
    if (/^2\d\d$/.test(status) && response.description === 'Default Response' && operation.summary)
      response.description = operation.summary;
    for (const media of Object.values(response.content ?? {})) media.schema = hoistTitled(media.schema, schemas);
  }
  for (const [status, name, applies] of FRAMEWORK_RESPONSES) {
    if (applies(operation, method) && operation.responses[status] === undefined)
      operation.responses[status] = { $ref: `#/components/responses/${name}` };
  }
  for (const media of Object.values(operation.requestBody?.content ?? {}))
    media.schema = hoistTitled(media.schema, schemas);
}

const byName = <V>(entries: Record<string, V>): Record<string, V> =>
  Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));

export function finishDocument<T extends OpenApiDocument>(document: T): T {
  const schemas: Record<string, unknown> = { ...(document.components?.schemas ?? {}) };
  const operations: Operation[] = [];
  for (const item of Object.values(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      finishOperation(method, operation, document, schemas);
      operations.push(operation);
    }
  }
  const known: Record<string, Response> = { ...(document.components?.responses ?? {}) };
  for (const [, name, , response] of FRAMEWORK_RESPONSES) {
    const finished = structuredClone(response);
    if (!('$ref' in finished))
      for (const media of Object.values(finished.content ?? {})) media.schema = hoistTitled(media.schema, schemas);
    known[name] = finished;
  }
  const responses = shareErrorResponses(operations, known);
  document.components = { ...document.components, schemas: byName(schemas), responses: byName(responses) };
  return document;
}
