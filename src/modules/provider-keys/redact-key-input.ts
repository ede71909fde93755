// A 422 echoes the offending input, as Pydantic does. For a key that merely failed a rule (a
// pasted trailing newline, say) that input is a real secret, and so is a whole body echoed for a
// missing field. This masks the key wherever a 422 body would carry it.
import type { ValidationIssue } from '../../platform/http/errors.ts';

export const MASK = '**********';

function maskBody(input: unknown): unknown {
  if (!input || typeof input !== 'object' || Array.isArray(input) || !('api_key' in input)) return input;
  return { ...(input as Record<string, unknown>), api_key: MASK };
}

export function redactKeyInputs(issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues.map((issue) => {
    if (issue.loc[0] === 'body' && issue.loc[1] === 'api_key') return { ...issue, input: MASK };
    return { ...issue, input: maskBody(issue.input) };
  });
}

/** onSend payload filter: rewrites a 422 body, leaves anything else alone. */
export function redactKeyInputsInPayload(statusCode: number, payload: unknown): unknown {
  if (statusCode !== 422 || typeof payload !== 'string') return payload;
  try {
    const body = JSON.parse(payload) as { detail?: unknown };
    if (!Array.isArray(body.detail)) return payload;
    return JSON.stringify({ ...body, detail: redactKeyInputs(body.detail as ValidationIssue[]) });
  } catch {
    return payload;
  }
}
