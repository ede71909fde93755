// Error answers that several operations give are written once, in `components.responses`, and
// referenced (decision 470). The document had the same `{"detail"}` error inline more than a thousand
// times; swagger-ui's OpenAPI 3.1 reader walks the whole document each time /docs resolves a part of it,
// so each copy cost the page time. Success answers stay inline, with their operation, where a reader
// of the document looks for them. Only the document changes: route schemas and serializers do not.

/** A response as the document writes it: inline, or a reference to `components.responses`. */
export type Response = { $ref: string } | { description?: string; content?: Record<string, { schema?: unknown }> };

interface Operation {
  operationId?: string;
  responses?: Record<string, Response>;
}

const REF = '#/components/responses/';

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * The component's name: its description when that is a short name already ("Error", "Validation
 * Error"), otherwise the operation that gives it whose id sorts first, and the status
 * (`RunRotateApiKeys503`): the same name whatever order the routes are registered in.
 */
function nameFor(response: Response, status: string, operation: Operation, taken: Record<string, unknown>): string {
  const description = 'description' in response ? (response.description ?? '') : '';
  const words = /^[A-Za-z]+( [A-Za-z]+){0,3}$/.test(description) ? description.split(' ') : [];
  const short = words.map(capitalized).join('');
  if (short && !(short in taken)) return short;
  return `${capitalized(operation.operationId ?? 'operation')}${status}`;
}

/**
 * Replaces every error response that is one of `known` or that two or more operations give alike by
 * a `$ref`; returns `components.responses`: the referenced ones of `known` and the shared ones.
 */
export function shareErrorResponses(
  operations: readonly Operation[],
  known: Readonly<Record<string, Response>>,
): Record<string, Response> {
  const components: Record<string, Response> = { ...known };
  const nameOf = new Map(Object.entries(known).map(([name, response]) => [JSON.stringify(response), name]));
  const inline = operations.flatMap((operation) =>
    Object.entries(operation.responses ?? {})
      .filter(([status, response]) => !/^2\d\d$/.test(status) && !('$ref' in response))
      .map(([status, response]) => ({ operation, status, response, body: JSON.stringify(response) })),
  );
  const uses = new Map<string, { count: number; namer: Operation }>();
  for (const { body, operation } of inline) {
    const seen = uses.get(body);
    if (!seen) uses.set(body, { count: 1, namer: operation });
    else {
      seen.count += 1;
      if ((operation.operationId ?? '') < (seen.namer.operationId ?? '')) seen.namer = operation;
    }
  }
  for (const { operation, status, response, body } of inline) {
    let name = nameOf.get(body);
    if (name === undefined) {
      const shared = uses.get(body);
      if (!shared || shared.count < 2) continue;
      name = nameFor(response, status, shared.namer, components);
      components[name] = response;
      nameOf.set(body, name);
    }
    (operation.responses as Record<string, Response>)[status] = { $ref: `${REF}${name}` };
  }
  const referenced = new Set(
    operations.flatMap((operation) =>
      Object.values(operation.responses ?? {}).flatMap((response) =>
        '$ref' in response && response.$ref.startsWith(REF) ? [response.$ref.slice(REF.length)] : [],
      ),
    ),
  );
  return Object.fromEntries(Object.entries(components).filter(([name]) => referenced.has(name)));
}
