// Request validation done once for the whole request: path, query, header and body are all checked
// and every invalid field is reported together, in FastAPI's order. Fastify's own validation stops at
// the first failing part, so it is switched off and this hook takes its place (after auth, which runs
// in onRequest, as FastAPI runs security dependencies first).
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { isIpOrCidr } from './client-address.ts';
import { canonicalUuid, parseDateTime } from './datetime.ts';
import { validationFailed, type ValidationIssue } from './errors.ts';
import { registerJsonBodyParser } from './json-body.ts';
import { oversizedLists } from './oversized-lists.ts';
import { toPydanticIssues, type RequestPart } from './pydantic-errors.ts';
import { unstorableValues } from './unstorable-values.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

declare module 'fastify' {
  interface FastifyRequest {
    /** The request body exactly as received, for signature checks. */
    rawBody?: Buffer;
  }
  interface FastifyContextConfig {
    validators?: RouteValidators;
  }
}

interface PartValidator {
  readonly validate: ValidateFunction;
  schema: unknown;
  /** A body whose schema requires nothing may be omitted. */
  optional: boolean;
  /** Top-level fields typed boolean: their strings are read as Pydantic reads them. */
  booleans: string[];
  /** Top-level fields that are not lists: a repeated query parameter gives its last value. */
  scalars: string[];
}

type RouteValidators = Partial<Record<RequestPart, PartValidator>>;

const PART_SOURCE: Record<RequestPart, 'params' | 'querystring' | 'headers' | 'body'> = {
  path: 'params',
  query: 'querystring',
  header: 'headers',
  body: 'body',
};
const ORDER: RequestPart[] = ['path', 'query', 'header', 'body'];

const CANONICAL = 'x-canonical';
const CANONICAL_FORMATS: Record<string, (value: string) => string | undefined> = {
  'date-time': (value) => parseDateTime(value)?.toISOString(),
  uuid: canonicalUuid,
};

function createAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    allErrors: true,
    strict: false,
    verbose: true,
  });
  addFormats(ajv);
  ajv.addFormat('ip-or-cidr', { type: 'string', validate: isIpOrCidr });
  // Pydantic's datetime and UUID accept more spellings than RFC 3339 and RFC 4122 strictly do.
  ajv.addFormat('date-time', { type: 'string', validate: (value: string) => parseDateTime(value) !== undefined });
  ajv.addFormat('uuid', { type: 'string', validate: (value: string) => canonicalUuid(value) !== undefined });
  ajv.addKeyword({ keyword: 'x-literal' });
  // Rewrites an accepted value into its one canonical spelling, so handlers never see variants.
  ajv.addKeyword({
    keyword: CANONICAL,
    modifying: true,
    schemaType: 'string',
    validate: (
      format: string,
      data: unknown,
      _schema?: unknown,
      context?: { parentData: unknown; parentDataProperty: string | number },
    ) => {
      if (typeof data !== 'string' || !context?.parentData) return true;
      const canonical = CANONICAL_FORMATS[format]?.(data);
      if (canonical !== undefined)
        (context.parentData as Record<string | number, unknown>)[context.parentDataProperty] = canonical;
      return true;
    },
  });
  return ajv;
}

/** A copy of the schema marking every value whose format has a canonical form. */
function withCanonicalForms(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withCanonicalForms);
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = withCanonicalForms(value);
  const format = copy.format;
  if (typeof format === 'string' && format in CANONICAL_FORMATS) copy[CANONICAL] = format;
  return copy;
}

/**
 * Drops from a valid body every property its schema does not declare, so no handler can use one
 * (`role` in a sign-up body, `user_id` in a credential). FastAPI ignores undeclared fields; so do we,
 * and the OpenAPI document stays as written. Objects that declare `additionalProperties` (provider
 * payloads, maps) or `patternProperties` keep theirs; a union follows the branch the value's type
 * takes (the body schemas' unions are a value or null).
 */
function dropUndeclared(value: unknown, schema: unknown): void {
  if (!value || typeof value !== 'object' || !schema || typeof schema !== 'object') return;
  const node = schema as {
    type?: unknown;
    properties?: Record<string, unknown>;
    items?: unknown;
    anyOf?: unknown[];
    oneOf?: unknown[];
    additionalProperties?: unknown;
    patternProperties?: unknown;
  };
  const branches = node.anyOf ?? node.oneOf;
  if (branches) {
    const kind = Array.isArray(value) ? 'array' : 'object';
    const branch = branches.find((b) => (b as { type?: unknown }).type === kind);
    if (branch) dropUndeclared(value, branch);
    return;
  }
  if (Array.isArray(value)) {
    if (node.items && typeof node.items === 'object') for (const item of value) dropUndeclared(item, node.items);
    return;
  }
  if (!node.properties) return;
  const record = value as Record<string, unknown>;
  const open = node.additionalProperties !== undefined || node.patternProperties !== undefined;
  for (const key of Object.keys(record)) {
    if (Object.hasOwn(node.properties, key)) dropUndeclared(record[key], node.properties[key]);
    else if (!open) delete record[key];
  }
}

/**
 * The longest path parameter accepted when its schema sets no bound of its own (decision 096). The
 * router no longer refuses long parameters, so an over-long one is a 422 on its `loc` like any other
 * over-long value.
 */
const MAX_PATH_PARAM_LENGTH = 100;

/**
 * Path parameters schemas with a plain string bounded by MAX_PATH_PARAM_LENGTH; it shows in the OpenAPI document too.
 */
function withBoundedParams(params: unknown): unknown {
  const schema = params as { properties?: Record<string, Record<string, unknown>> };
  if (!schema.properties) return params;
  const properties: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const unbounded =
      property.type === 'string' &&
      ['maxLength', 'format', 'enum', 'const'].every((key) => property[key] === undefined);
    properties[name] = unbounded ? { ...property, maxLength: MAX_PATH_PARAM_LENGTH } : property;
  }
  return { ...schema, properties };
}

function isBooleanSchema(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const node = schema as { type?: unknown; anyOf?: unknown[] };
  if (node.type === 'boolean' || (Array.isArray(node.type) && node.type.includes('boolean'))) return true;
  return Array.isArray(node.anyOf) && node.anyOf.some(isBooleanSchema);
}

function isArraySchema(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const node = schema as { type?: unknown; anyOf?: unknown[] };
  if (node.type === 'array' || (Array.isArray(node.type) && node.type.includes('array'))) return true;
  return Array.isArray(node.anyOf) && node.anyOf.some(isArraySchema);
}

const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

export function registerValidation(app: FastifyInstance): void {
  // Strings in path, query and headers are coerced like Pydantic's lax mode; a JSON body is not.
  const lax = createAjv(true);
  const strict = createAjv(false);

  app.setValidatorCompiler(() => () => true);

  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema?.params) route.schema = { ...route.schema, params: withBoundedParams(route.schema.params) };
    const schema = route.schema as Record<string, unknown> | undefined;
    if (!schema) return;
    const validators: RouteValidators = {};
    for (const part of ORDER) {
      const partSchema = schema[PART_SOURCE[part]] as Record<string, unknown> | undefined;
      if (!partSchema) continue;
      const ajv = part === 'body' ? strict : lax;
      const required = partSchema.required as unknown[] | undefined;
      const properties = (partSchema.properties ?? {}) as Record<string, unknown>;
      let validate: ValidateFunction | undefined;
      validators[part] = {
        schema: partSchema,
        // Compiled on the route's first request, not at start (decision 016).
        get validate() {
          return (validate ??= ajv.compile(
            withCanonicalForms(
              part === 'header' ? { ...partSchema, additionalProperties: true } : partSchema,
            ) as Record<string, unknown>,
          ));
        },
        optional: partSchema.type === 'object' && (!required || required.length === 0),
        booleans: part === 'body' ? [] : Object.keys(properties).filter((key) => isBooleanSchema(properties[key])),
        scalars: part === 'query' ? Object.keys(properties).filter((key) => !isArraySchema(properties[key])) : [],
      };
    }
    route.config = { ...(route.config as object), validators } as RouteOptions['config'];
  });

  app.addHook('preValidation', async (request) => {
    const validators = request.routeOptions.config.validators;
    if (!validators) return;
    const issues: ValidationIssue[] = [];
    for (const part of ORDER) {
      const validator = validators[part];
      if (validator) issues.push(...validatePart(request, part, validator));
    }
    if (issues.length > 0) throw validationFailed(issues);
  });

  registerJsonBodyParser(app);
}

function validatePart(request: FastifyRequest, part: RequestPart, validator: PartValidator): ValidationIssue[] {
  const source = PART_SOURCE[part];
  const current = (request as unknown as Record<string, unknown>)[source === 'querystring' ? 'query' : source];

  if (part === 'body') {
    if (current === undefined || current === null) {
      if (validator.optional) {
        request.body = {};
        validator.validate(request.body);
        return [];
      }
      return [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }];
    }
    const oversized = oversizedLists(current, validator.schema);
    if (oversized.length > 0) return toPydanticIssues(oversized, { part, data: current, raw: current });
    // Defaults and canonical forms are written into a copy, so errors quote the body as it came.
    const copy: unknown = structuredClone(current);
    if (validator.validate(copy)) {
      // What the operation ignores is neither stored nor refused.
      dropUndeclared(copy, validator.schema);
      const unstorable = unstorableValues(copy, ['body']);
      if (unstorable.length > 0) return unstorable;
      request.body = copy;
      return [];
    }
    return toPydanticIssues(validator.validate.errors ?? [], { part, data: current, raw: current });
  }

  // Validate a copy so the raw strings stay available for the error's `input`.
  const given = (current ?? {}) as Record<string, unknown>;
  // Built key by key: ajv then adds defaults to an ordinary object; on a spread clone V8 takes a slow path.
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(given)) raw[key] = given[key];
  // Starlette keeps the last of repeated query parameters for a single-valued field.
  for (const key of validator.scalars) {
    const value = raw[key];
    if (Array.isArray(value)) raw[key] = value[value.length - 1];
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) copy[key] = raw[key];
  for (const key of validator.booleans) {
    const value = copy[key];
    if (typeof value !== 'string') continue;
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) copy[key] = 'true';
    else if (FALSE_WORDS.has(word)) copy[key] = 'false';
  }
  if (validator.validate(copy)) {
    const unstorable = Object.keys(raw).flatMap((key) => unstorableValues(copy[key], [part, key], raw[key]));
    if (unstorable.length > 0) return unstorable;
    if (part === 'path') request.params = copy;
    else if (part === 'query') request.query = copy;
    else Object.assign(request.headers, copy);
    return [];
  }
  return toPydanticIssues(validator.validate.errors ?? [], { part, data: copy, raw });
}
