// Lists longer than their schema's `maxItems`, found before ajv runs (decision 199). With `allErrors`
// (Pydantic reports every invalid field), ajv checks every item of a list it already knows is too long,
// and writes an error object for each bad one: a 1 MB body of 250,000 invalid items held the event loop
// for seconds. A list over its bound is answered with its `too_long` alone, as quickly as it is counted.
import type { ErrorObject } from 'ajv';

interface Node {
  type?: unknown;
  maxItems?: number;
  properties?: Record<string, Node>;
  items?: Node;
  anyOf?: Node[];
  oneOf?: Node[];
}

const pointerToken = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** The maxItems errors of every over-long list in `value`, as ajv would write them; none when all fit. */
export function oversizedLists(value: unknown, schema: unknown, pointer = ''): ErrorObject[] {
  if (!value || typeof value !== 'object' || !schema || typeof schema !== 'object') return [];
  const node = schema as Node;
  const branches = node.anyOf ?? node.oneOf;
  if (branches) {
    const kind = Array.isArray(value) ? 'array' : 'object';
    const branch = branches.find((b) => b.type === kind);
    return branch ? oversizedLists(value, branch, pointer) : [];
  }
  if (Array.isArray(value)) {
    if (node.maxItems !== undefined && value.length > node.maxItems) {
      return [
        {
          keyword: 'maxItems',
          instancePath: pointer,
          schemaPath: '#/maxItems',
          params: { limit: node.maxItems },
          data: value,
        } as ErrorObject,
      ];
    }
    // Items within a bounded list are few; an unbounded list's items are looked into only when objects.
    if (!node.items || value.length === 0 || typeof value[0] !== 'object') return [];
    return value.flatMap((item, i) => oversizedLists(item, node.items, `${pointer}/${i}`));
  }
  if (!node.properties) return [];
  const record = value as Record<string, unknown>;
  return Object.entries(node.properties).flatMap(([key, child]) =>
    Object.hasOwn(record, key) ? oversizedLists(record[key], child, `${pointer}/${pointerToken(key)}`) : [],
  );
}
