// Requests at the edges of every operation's inputs, from its OpenAPI schemas: dates at year 1 and
// 9999 (windows as wide and as inverted as they go), integers at their declared maximum and far past
// it, the largest numbers, every value of an enum, strings at their longest, lists as long as allowed
// and far longer, comma lists of thousands of items. Drawn from a seeded generator, so a run repeats.
import { sample, type JsonSchema, type Known, type Operation } from './hostile-requests.ts';

export const YEAR_1 = '0001-01-01T00:00:00Z';
export const YEAR_9999 = '9999-12-31T23:59:59.999Z';
/** Lists sent where a schema declares none (or far past the declared bound). */
const LONG_LIST = 10_000;
const FILLED_BODY_BYTES = 900_000;

const branch = (schema: JsonSchema) => (schema.anyOf ?? schema.oneOf)?.find((s) => s.type !== 'null');
const typeOf = (schema: JsonSchema) => [schema.type].flat().find((t) => t !== 'null');
type Bounded = JsonSchema & { maximum?: number; maxItems?: number; description?: string };

/** Query values that name a comma-separated list of these, by parameter name. */
const COMMA_LISTS: Record<string, string[]> = {
  symbols: ['BTCUSDT', 'ETHUSDT', 'BNBUSDT'],
  states: ['backlog', 'todo', 'done'],
  status: ['todo', 'done'],
};

/** Where a date parameter opens a window, it goes to year 1; where it closes one, to year 9999. */
const opensWindow = (name: string) => /^(start|since|from|after)/i.test(name);

/** The edge values of one parameter or field: the widest work first, then the other edges. */
export function edges(name: string, schema: Bounded, known: Known): string[] | unknown[] {
  const alternative = branch(schema);
  if (alternative && !schema.type) return edges(name, alternative, known);
  if (schema.enum) return schema.enum;
  switch (typeOf(schema)) {
    case 'string': {
      if (schema.format === 'date-time')
        return opensWindow(name) ? [YEAR_1, YEAR_9999, '1970-01-01T00:00:00Z'] : [YEAR_9999, YEAR_1];
      const list = COMMA_LISTS[name];
      if (list && /comma/i.test(schema.description ?? ''))
        return [Array.from({ length: 5000 }, (_, i) => list[i % list.length]).join(',')];
      if (known[name] !== undefined) return [known[name]];
      if (schema.format) return [sample(schema, known, name)];
      return [schema.maxLength !== undefined ? 'x'.repeat(schema.maxLength) : sample(schema, known, name)];
    }
    case 'integer': {
      const max = schema.maximum;
      return max !== undefined ? [max, max * 1000 + 1, Number.MAX_SAFE_INTEGER] : [Number.MAX_SAFE_INTEGER, 1e15];
    }
    case 'number':
      return schema.maximum !== undefined ? [schema.maximum, 1e308] : [1e308, 1e15];
    case 'boolean':
      return [true, false];
    case 'array': {
      const item = sample(schema.items ?? {}, known);
      // As many as fit in a body under the 1 MiB limit, too.
      const filling = Math.floor(FILLED_BODY_BYTES / (JSON.stringify(item ?? null).length + 1));
      const counts = [...(schema.maxItems !== undefined ? [schema.maxItems] : []), LONG_LIST, filling];
      return counts.map((n) => Array.from({ length: n }, () => item));
    }
    default:
      return [sample(schema, known, name)];
  }
}

/** A body at the edges: every declared field (optional ones too), each at the pick's edge. */
function bodyAt(schema: Bounded, known: Known, pick: (values: unknown[]) => unknown, name = ''): unknown {
  const alternative = branch(schema);
  if (alternative && !schema.type) return bodyAt(alternative, known, pick, name);
  if (typeOf(schema) === 'object' && schema.properties) {
    return Object.fromEntries(
      Object.entries(schema.properties).map(([key, child]) => [
        key,
        known[key] !== undefined && typeOf(child) !== 'array' ? known[key] : bodyAt(child, known, pick, key),
      ]),
    );
  }
  return pick(edges(name, schema, known) as unknown[]);
}

export interface ExtremeRequest {
  label: string;
  url: string;
  payload?: string;
}

/**
 * The requests for one operation: all at the widest work; all at their last edge (the longest lists,
 * the largest numbers); each value of every enum with the rest at
 * the widest; dates inverted; then `random` seeded mixes of the edges.
 */
export function extremeRequests(operation: Operation, known: Known, random: () => number, mixes = 4): ExtremeRequest[] {
  const params = operation.parameters.filter((p) => p.in === 'query' || p.in === 'path');
  const first = (values: unknown[]) => values[0];
  const any = (values: unknown[]) => values[Math.floor(random() * values.length)];
  const build = (label: string, pick: (name: string, values: unknown[]) => unknown): ExtremeRequest => {
    let path = operation.path;
    const query: string[] = [];
    for (const p of params) {
      const value =
        p.in === 'path'
          ? (known[p.name] ?? sample(p.schema, known, p.name))
          : pick(p.name, edges(p.name, p.schema as Bounded, known) as unknown[]);
      if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(value)));
      else query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(String(value))}`);
    }
    const body = operation.body
      ? JSON.stringify(bodyAt(operation.body as Bounded, known, (values) => pick('', values)))
      : undefined;
    return { label, url: query.length > 0 ? `${path}?${query.join('&')}` : path, payload: body };
  };
  const requests = [
    build('widest', (_name, values) => first(values)),
    build('last edges', (_name, values) => values.at(-1)),
  ];
  for (const p of params) {
    const values = (p.schema as Bounded).enum ?? branch(p.schema)?.enum;
    for (const value of values?.slice(1, 16) ?? [])
      requests.push(build(`${p.name}=${String(value)}`, (name, v) => (name === p.name ? value : first(v))));
  }
  if (params.some((p) => p.schema.format === 'date-time' || branch(p.schema)?.format === 'date-time'))
    requests.push(build('dates inverted', (_name, values) => (values.includes(YEAR_1) ? values[1] : first(values))));
  for (let i = 0; i < mixes; i++) requests.push(build(`mix ${i}`, (_name, values) => any(values)));
  return requests;
}
