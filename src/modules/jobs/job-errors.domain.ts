// What a failed job may say about its failure: to the HTTP caller (an external cron), to the run
// record and to the dashboard. Never a stack, a query, a connection string or a secret; the cause goes
// to the log only.
import { AppError } from '../../platform/http/errors.ts';

const MAX_LENGTH = 300;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
]);

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current = error;
  while (current && chain.length < 8) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

export function safeJobError(error: unknown): string {
  for (const link of causes(error)) {
    // Our own errors carry a sentence written for clients (a 5xx one never names its cause).
    if (link instanceof AppError && typeof link.detail === 'string') return link.detail.slice(0, MAX_LENGTH);
    const code = (link as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return `a dependency is unreachable (${code})`;
    // PostgreSQL SQLSTATE class 08 (connection exception) and 57P0x (server shutting down).
    if (typeof code === 'string' && /^(08|57P0)/.test(code)) return 'the database is unavailable';
    const message = (link as { message?: unknown }).message;
    if (
      typeof message === 'string' &&
      /Connection terminated|connection timeout|PGlite is closed|pool after calling end/i.test(message)
    ) {
      return 'the database is unavailable';
    }
  }
  return 'unexpected error; the cause is in the service log';
}
