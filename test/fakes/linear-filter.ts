// Linear's filter semantics for the Linear fake: comparators (eq, in, eqIgnoreCase, null, …), nested
// relations, `some`/`every` on collections, and/or; an unknown field or comparator is refused with
// graphql-js's wording, as Linear refuses it.
import { GraphQLRequestError } from './graphql-lite.ts';

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
export function matches(entity: Record<string, unknown>, filter: Record<string, unknown> | undefined | null): boolean {
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
