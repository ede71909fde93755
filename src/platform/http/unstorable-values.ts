// Values a request may carry that no database column or JSON answer can hold, as Pydantic-shaped issues:
// the validation hook checks every request part with it, and a route that reads its own body checks
// what it reads.
import type { ValidationIssue } from './errors.ts';
import { MAX_JSON_DEPTH } from './json-body.ts';

/** With the `u` flag a surrogate range matches only surrogates that are not half of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const NUL_CHARACTER = 'text must not contain the NUL character (\\u0000)';

/**
 * Values a schema lets through but that no database column or JSON answer can hold: text with a NUL
 * character (PostgreSQL refuses it), text with a lone UTF-16 surrogate (`"\\ud800"` in JSON: it has no
 * UTF-8 form, so a driver would store U+FFFD or refuse it; Pydantic answers `string_unicode`,
 * decision 130) and numbers too large to be finite (`1e400`). Every string of every request part
 * passes here, so no route can store one; a route that reads its own body (TradingView alerts) passes
 * what it reads here too.
 */
export function unstorableValues(
  value: unknown,
  loc: (string | number)[],
  input: unknown = value,
  depth = 0,
): ValidationIssue[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      return [{ type: 'value_error', loc, msg: `Value error, ${NUL_CHARACTER}`, input, ctx: { error: NUL_CHARACTER } }];
    return !LONE_SURROGATE.test(value)
      ? []
      : [
          {
            type: 'string_unicode',
            loc,
            msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
            input,
          },
        ];
  }
  if (typeof value === 'number') {
    return Number.isFinite(value)
      ? []
      : [{ type: 'finite_number', loc, msg: 'Input should be a finite number', input }];
  }
  if (!value || typeof value !== 'object' || depth > MAX_JSON_DEPTH) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => unstorableValues(item, [...loc, i], item, depth + 1));
  return Object.entries(value).flatMap(([key, child]) => [
    ...unstorableValues(key, [...loc, key], key, depth + 1),
    ...unstorableValues(child, [...loc, key], child, depth + 1),
  ]);
}
