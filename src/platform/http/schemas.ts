// Schema building blocks shared by every module: the error bodies of the contract and a few types.
import { Type, type TSchema } from 'typebox';

export const Detail = Type.Object(
  { detail: Type.String({ description: 'What went wrong, in one sentence.' }) },
  { title: 'HTTPError', description: 'Error' },
);

export const ValidationError = Type.Object(
  {
    detail: Type.Array(
      Type.Object(
        {
          type: Type.String({ description: "Pydantic's error type, e.g. `missing`, `greater_than_equal`." }),
          loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
            description:
              'Where: the request part first (`body`, `query`, `path`, `header`), then field names and list indexes.',
          }),
          msg: Type.String({ description: 'Human-readable message.' }),
          input: Type.Unknown({ description: 'The offending input (raw string for query and header values).' }),
          // An object of any keys, spelled as OpenAPI spells it (a TypeBox Record is patternProperties).
          ctx: Type.Optional(
            Type.Object({}, { additionalProperties: true, description: 'The bound or expected values.' }),
          ),
        },
        { title: 'ValidationError' },
      ),
    ),
  },
  { title: 'HTTPValidationError', description: 'Validation Error' },
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
  return Type.Unsafe<T[number]>({
    type: 'string',
    enum: [...values],
    ...(literal ? { 'x-literal': true } : {}),
    ...rest,
  });
}

/**
 * The largest page number and row offset a list accepts (decision 098). Query numbers pass through
 * JavaScript numbers, exact only up to 2^53; these bounds keep every page, offset and page × size
 * exact, so the answer echoes what was asked and larger values are a 422 rather than a rounded echo.
 */
const MAX_PAGE = 1_000_000_000;
const MAX_OFFSET = 1_000_000_000_000;

/** A `page` query parameter, from 1 to MAX_PAGE. */
export const PageNumber = (description = 'Page number, from 1.') =>
  Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `${description} At most ${MAX_PAGE}.` });

/** An `offset` query parameter, from 0 to MAX_OFFSET. */
export const RowOffset = (description: string) =>
  Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description: `${description} At most ${MAX_OFFSET}.` });

export const Uuid = (description?: string) => Type.String({ format: 'uuid', description });
export const DateTime = (description?: string) => Type.String({ format: 'date-time', description });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** ISO 8601 UTC with milliseconds and `Z`, as every timestamp of the contract. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
