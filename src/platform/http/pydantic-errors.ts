// Translates ajv errors into the items FastAPI/Pydantic v2 writes in a 422, so that clients written
// against the contract parse our errors unchanged. Pure: tested on its own.
import type { ErrorObject } from 'ajv';
import { dateTimeError } from './datetime.ts';
import type { ValidationIssue } from './errors.ts';

export type RequestPart = 'path' | 'query' | 'header' | 'body';

interface MapContext {
  part: RequestPart;
  /** The value after coercion (what ajv saw). */
  data: unknown;
  /** The value before coercion: query, path and header inputs are reported as the raw strings. */
  raw: unknown;
}

export function toPydanticIssues(errors: readonly ErrorObject[], context: MapContext): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  // A union of literals fails once per branch; Pydantic reports them as one literal_error listing
  // every allowed value, whatever the input's type.
  const literalsAt = new Map<string, unknown[]>();
  for (const error of errors) {
    if (error.keyword !== 'const') continue;
    const values = literalsAt.get(error.instancePath) ?? [];
    const value = (error.params as { allowedValue: unknown }).allowedValue;
    if (!values.includes(value)) values.push(value);
    literalsAt.set(error.instancePath, values);
  }
  // Union keywords report once per branch; the branch errors say more, so only keep the union's
  // own error when nothing more specific was said about the same place.
  const specific = errors.filter((e) => !['anyOf', 'oneOf', 'if', 'not'].includes(e.keyword));
  const pool = specific.length > 0 ? specific : errors;
  for (const error of pool) {
    const literals = literalsAt.get(error.instancePath);
    const issue =
      literals && error.keyword !== 'required' ? literalIssue(error, context, literals) : toIssue(error, context);
    const key = JSON.stringify(issue.loc);
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function locate(error: ErrorObject, { part, data, raw }: MapContext) {
  const path = pointerToPath(error.instancePath, data);
  const source = part === 'body' ? data : raw;
  return { path, loc: [part, ...path] as (string | number)[], input: valueAt(source, path) };
}

function literalIssue(error: ErrorObject, context: MapContext, values: unknown[]): ValidationIssue {
  const { loc, input } = locate(error, context);
  const expected = expectedList(values);
  return { type: 'literal_error', loc, msg: `Input should be ${expected}`, input, ctx: { expected } };
}

function toIssue(error: ErrorObject, context: MapContext): ValidationIssue {
  const { part } = context;
  const { path, loc, input } = locate(error, context);
  const params = error.params as Record<string, unknown>;
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;

  switch (error.keyword) {
    case 'required': {
      const field = String(params.missingProperty);
      return {
        type: 'missing',
        loc: [...loc, field],
        msg: 'Field required',
        // Pydantic reports the containing object for a missing body field, null elsewhere.
        input: part === 'body' ? (input ?? null) : null,
      };
    }
    case 'type':
      return typeIssue(loc, input, params.type, part, path.length === 0);
    case 'minimum':
      return bound(loc, input, 'greater_than_equal', 'greater than or equal to', 'ge', params.limit);
    case 'exclusiveMinimum':
      return bound(loc, input, 'greater_than', 'greater than', 'gt', params.limit);
    case 'maximum':
      return bound(loc, input, 'less_than_equal', 'less than or equal to', 'le', params.limit);
    case 'exclusiveMaximum':
      return bound(loc, input, 'less_than', 'less than', 'lt', params.limit);
    case 'minLength': {
      const n = Number(params.limit);
      return {
        type: 'string_too_short',
        loc,
        msg: `String should have at least ${n} character${plural(n)}`,
        input,
        ctx: { min_length: n },
      };
    }
    case 'maxLength': {
      const n = Number(params.limit);
      return {
        type: 'string_too_long',
        loc,
        msg: `String should have at most ${n} character${plural(n)}`,
        input,
        ctx: { max_length: n },
      };
    }
    case 'minItems': {
      const n = Number(params.limit);
      const actual = Array.isArray(input) ? input.length : 0;
      return {
        type: 'too_short',
        loc,
        msg: `List should have at least ${n} item${plural(n)} after validation, not ${actual}`,
        input,
        ctx: { field_type: 'List', min_length: n, actual_length: actual },
      };
    }
    case 'maxItems': {
      const n = Number(params.limit);
      const actual = Array.isArray(input) ? input.length : 0;
      return {
        type: 'too_long',
        loc,
        msg: `List should have at most ${n} item${plural(n)} after validation, not ${actual}`,
        input,
        ctx: { field_type: 'List', max_length: n, actual_length: actual },
      };
    }
    case 'enum':
    case 'const': {
      const values = error.keyword === 'enum' ? (params.allowedValues as unknown[]) : [params.allowedValue];
      const expected = expectedList(values);
      const type = error.keyword === 'const' || schema['x-literal'] === true ? 'literal_error' : 'enum';
      return { type, loc, msg: `Input should be ${expected}`, input, ctx: { expected } };
    }
    case 'pattern': {
      const pattern = String(params.pattern);
      return {
        type: 'string_pattern_mismatch',
        loc,
        msg: `String should match pattern '${pattern}'`,
        input,
        ctx: { pattern },
      };
    }
    case 'format':
      return formatIssue(loc, input, String(params.format));
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      return {
        type: 'extra_forbidden',
        loc: [...loc, extra],
        msg: 'Extra inputs are not permitted',
        input: valueAt(input, [extra]),
      };
    }
    default: {
      const message = error.message ?? 'invalid value';
      return { type: 'value_error', loc, msg: `Value error, ${message}`, input, ctx: { error: message } };
    }
  }
}

// A JSON body is not coerced (docs/decisions/004): a string that Pydantic's lax mode would have
// parsed is reported with Pydantic's strict-mode type error instead of a misleading parsing error.
const LAX_INTEGER = /^\s*[+-]?\d+(?:\.0*)?\s*$/;
const LAX_NUMBER = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$|^\s*[+-]?(?:inf|infinity|nan)\s*$/i;
const LAX_BOOLEAN = /^(?:0|1|f|t|n|y|no|yes|off|on|false|true)$/i;

function typeIssue(
  loc: (string | number)[],
  input: unknown,
  expected: unknown,
  part: RequestPart,
  atRoot: boolean,
): ValidationIssue {
  const types = Array.isArray(expected) ? expected : String(expected).split(',');
  const type = types.find((t) => t !== 'null') ?? 'null';
  const strictString = (pattern: RegExp) => part === 'body' && typeof input === 'string' && pattern.test(input);
  switch (type) {
    case 'integer':
      if (typeof input === 'number') {
        return {
          type: 'int_from_float',
          loc,
          msg: 'Input should be a valid integer, got a number with a fractional part',
          input,
        };
      }
      if (typeof input === 'string' && !strictString(LAX_INTEGER)) {
        return {
          type: 'int_parsing',
          loc,
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          input,
        };
      }
      return { type: 'int_type', loc, msg: 'Input should be a valid integer', input };
    case 'number':
      if (typeof input === 'string' && !strictString(LAX_NUMBER)) {
        return {
          type: 'float_parsing',
          loc,
          msg: 'Input should be a valid number, unable to parse string as a number',
          input,
        };
      }
      return { type: 'float_type', loc, msg: 'Input should be a valid number', input };
    case 'boolean':
      if (
        (typeof input === 'string' && !strictString(LAX_BOOLEAN)) ||
        (typeof input === 'number' && input !== 0 && input !== 1)
      ) {
        return { type: 'bool_parsing', loc, msg: 'Input should be a valid boolean, unable to interpret input', input };
      }
      return { type: 'bool_type', loc, msg: 'Input should be a valid boolean', input };
    case 'string':
      return { type: 'string_type', loc, msg: 'Input should be a valid string', input };
    case 'array':
      return { type: 'list_type', loc, msg: 'Input should be a valid list', input };
    case 'object':
      if (part === 'body' && atRoot) {
        return {
          type: 'model_attributes_type',
          loc,
          msg: 'Input should be a valid dictionary or object to extract fields from',
          input,
        };
      }
      return { type: 'dict_type', loc, msg: 'Input should be a valid dictionary', input };
    default:
      return { type: `${type}_type`, loc, msg: `Input should be a valid ${type}`, input };
  }
}

function bound(
  loc: (string | number)[],
  input: unknown,
  type: string,
  words: string,
  key: string,
  limit: unknown,
): ValidationIssue {
  return { type, loc, msg: `Input should be ${words} ${String(limit)}`, input, ctx: { [key]: limit } };
}

function formatIssue(loc: (string | number)[], input: unknown, format: string): ValidationIssue {
  const text = typeof input === 'string' ? input : String(input);
  switch (format) {
    case 'uuid': {
      const error = uuidError(text);
      return { type: 'uuid_parsing', loc, msg: `Input should be a valid UUID, ${error}`, input, ctx: { error } };
    }
    case 'date-time': {
      const error = dateTimeError(text);
      return {
        type: 'datetime_from_date_parsing',
        loc,
        msg: `Input should be a valid datetime or date, ${error}`,
        input,
        ctx: { error },
      };
    }
    case 'date': {
      // A date Pydantic cannot read is read again as a datetime, and that error is the one reported
      // (decision 993): "2031-02-30" is a day out of range, not a bad year.
      const error = dateTimeError(text);
      return {
        type: 'date_from_datetime_parsing',
        loc,
        msg: `Input should be a valid date or datetime, ${error}`,
        input,
        ctx: { error },
      };
    }
    case 'email': {
      const reason = text.includes('@')
        ? 'There must be something after the @-sign.'
        : 'An email address must have an @-sign.';
      return { type: 'value_error', loc, msg: `value is not a valid email address: ${reason}`, input, ctx: { reason } };
    }
    case 'ip-or-cidr':
      return { type: 'ip_any_network', loc, msg: 'value is not a valid IPv4 or IPv6 network', input };
    case 'uri':
    case 'url':
      return {
        type: 'url_parsing',
        loc,
        msg: 'Input should be a valid URL, relative URL without a base',
        input,
        ctx: { error: 'relative URL without a base' },
      };
    default: {
      const error = `invalid ${format}`;
      return { type: 'value_error', loc, msg: `Value error, ${error}`, input, ctx: { error } };
    }
  }
}

/** The messages of the Rust `uuid` crate that Pydantic reports. */
function uuidError(text: string): string {
  const body = text.toLowerCase().startsWith('urn:uuid:') ? text.slice(9) : text;
  const offset = text.length - body.length;
  for (let i = 0; i < body.length; i++) {
    if (!/[0-9a-fA-F-]/.test(body[i]!)) {
      return (
        'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found ' +
        `\`${body[i]}\` at ${offset + i + 1}`
      );
    }
  }
  if (!body.includes('-')) return `invalid length: expected length 32 for simple format, found ${body.length}`;
  const groups = body.split('-');
  if (groups.length !== 5) return `invalid group count: expected 5, found ${groups.length}`;
  const expected = [8, 4, 4, 4, 12];
  for (let g = 0; g < 5; g++) {
    if (groups[g]!.length !== expected[g]) {
      return `invalid group length in group ${g}: expected ${expected[g]}, found ${groups[g]!.length}`;
    }
  }
  return 'invalid format';
}

export function expectedList(values: readonly unknown[]): string {
  const quoted = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function plural(n: number): string {
  return n === 1 ? '' : 's';
}

function pointerToPath(pointer: string, data: unknown): (string | number)[] {
  if (!pointer) return [];
  const path: (string | number)[] = [];
  let node: unknown = data;
  for (const rawSegment of pointer.slice(1).split('/')) {
    const segment = rawSegment.replace(/~1/g, '/').replace(/~0/g, '~');
    const key = Array.isArray(node) && /^\d+$/.test(segment) ? Number(segment) : segment;
    path.push(key);
    node = node && typeof node === 'object' ? (node as Record<string | number, unknown>)[key] : undefined;
  }
  return path;
}

function valueAt(source: unknown, path: readonly (string | number)[]): unknown {
  let node = source;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}
