// Linear's query complexity, as its rate-limiting documentation counts it: each property 0.1 point, each
// object 1 point, and a connection's nodes counted once per item its pagination argument (`first`/`last`)
// asks for, 50 without one. A query over LINEAR_MAX_COMPLEXITY is refused before it runs. PROTOCOLS gives
// the limit (10 000 per query) but not the refusal's wording: the fake's message is its own, and the app
// depends on no wording (any such refusal is a 502, the tracker refusing the request).
import { type Field, type Operation, resolveArgs } from './graphql-lite.ts';

export const LINEAR_MAX_COMPLEXITY = 10_000;
const DEFAULT_PAGE = 50;

/** The points of one operation with these variables, rounded up as Linear reports them (`X-Complexity`). */
export function queryComplexity(operation: Operation, variables: Record<string, unknown>): number {
  const points = (field: Field): number => {
    if (!field.selections) return 0.1;
    const args = resolveArgs(operation, field, variables);
    const items = field.selections.some((s) => s.name === 'nodes' || s.name === 'edges')
      ? Number(args.first ?? args.last ?? DEFAULT_PAGE)
      : 1;
    return field.selections.reduce(
      (sum, child) => sum + (child.name === 'nodes' || child.name === 'edges' ? items * points(child) : points(child)),
      field.name === 'nodes' || field.name === 'edges' || items === 1 ? 1 : 0,
    );
  };
  return Math.ceil(operation.selections.reduce((sum, field) => sum + points(field), 0));
}
