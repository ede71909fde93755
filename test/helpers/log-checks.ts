// Checks on the captured log. A "this secret appears nowhere" check passes on an empty or detached
// capture too; these first show that the operations that carried the secrets were logged, so the
// absence means something.
import assert from 'node:assert/strict';

export interface CapturedLog {
  logLines(): Record<string, unknown>[];
  logText(): string;
}

export interface LoggedOperation {
  method: string;
  /** The path, without the query string. */
  path: string;
}

interface LoggedRequest {
  method?: string;
  url?: string;
}

const pathOf = (url: string) => url.split('?')[0];

/**
 * The request lines ('incoming request' and its 'request completed', joined by reqId) of each
 * operation, at least once each; then that no secret occurs anywhere in the raw log text.
 */
export function assertLoggedWithoutSecrets(
  log: CapturedLog,
  operations: readonly LoggedOperation[],
  secrets: readonly string[],
): void {
  assert.ok(operations.length > 0, 'name the operations that carried the secrets');
  assert.ok(secrets.length > 0, 'name the secrets');
  const lines = log.logLines();
  for (const { method, path } of operations) {
    const ids = new Set(
      lines
        .filter((line) => {
          const req = line.req as LoggedRequest | undefined;
          return line.msg === 'incoming request' && req?.method === method && pathOf(req.url ?? '') === path;
        })
        .map((line) => line.reqId),
    );
    assert.ok(ids.size > 0, `the log holds the request line of ${method} ${path}`);
    assert.ok(
      lines.some((line) => line.msg === 'request completed' && ids.has(line.reqId)),
      `the log holds the completion of ${method} ${path}`,
    );
  }
  const text = log.logText();
  for (const secret of secrets) {
    // A short "secret" would match unrelated text, an empty one everything.
    assert.ok(secret.length >= 8, `"${secret}" is too short to look for`);
    assert.ok(!text.includes(secret), `the log holds ${secret.slice(0, 4)}…`);
  }
}
