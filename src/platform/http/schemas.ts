// Schema building blocks shared by every module: the error bodies of the contract and a few types.
import { Type, type TSchema } from 'typebox';

export const Detail = Type.Object(
  { detail: Type.String({ description: 'What went wrong, in one sentence.' }) },
  { description: 'Error' },
);

export const ValidationError = Type.Object(
  {
    detail: Type.Array(
      Type.Object({
        type: Type.String({ description: "Pydantic's error type, e.g. `missing`, `greater_than_equal`." }),
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
          description: 'Where: the request part first (`body`, `query`, `path`, `header`), then field names and list indexes.',
        }),
        msg: Type.String({ description: 'Human-readable message.' }),
        input: Type.Unknown({ description: 'The offending input (raw string for query and header values).' }),
        ctx: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The bound or expected values.' })),
      }),
    ),
  },
  { description: 'Validation Error' },
);

/** Error responses to document on a route: the contract's 422 plus the listed `{"detail"}` statuses. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const responses: Record<number, TSchema> = { 422: ValidationError };
  for (const status of statuses) responses[status] = Detail;
  return responses;
}

/** The bearer-token requirement, for the OpenAPI document. */
export const bearerSecurity = [{ bearerAuth: [] }];

/** A closed set of strings that validation reports as Pydantic's `enum` (or `literal_error`). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string; default?: T[number]; literal?: boolean } = {},
) {
  const { literal, ...rest } = options;
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(literal ? { 'x-literal': true } : {}), ...rest });
}

export const Uuid = (description?: string) => Type.String({ format: 'uuid', description });
export const DateTime = (description?: string) => Type.String({ format: 'date-time', description });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** ISO 8601 UTC with milliseconds and `Z`, as every timestamp of the contract. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString();
}
