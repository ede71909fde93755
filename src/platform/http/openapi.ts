// Touches on the generated OpenAPI document. A parameter with a default is listed in its schema's
// `required` (TypeBox lists every non-Optional field, and ajv fills the default before checking), so
// @fastify/swagger marks it required; FastAPI documents such a parameter as optional, and so do we.

interface Parameter {
  required?: boolean;
  schema?: { default?: unknown };
}

export interface OpenApiDocument {
  paths?: Record<string, Record<string, { parameters?: Parameter[] } | unknown>>;
}

export function optionalWhenDefaulted<T extends OpenApiDocument>(document: T): T {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      const parameters = (operation as { parameters?: Parameter[] } | undefined)?.parameters;
      for (const parameter of parameters ?? []) {
        if (parameter.required && parameter.schema?.default !== undefined) parameter.required = false;
      }
    }
  }
  return document;
}
