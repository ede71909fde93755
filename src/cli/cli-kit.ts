// What every operator command shares: argument parsing that reports every problem at once, and the
// platform opened on the configured database with logs on stderr (stdout carries the answer).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig } from '../config/config.ts';
import { JOB_NAMES } from '../declarations.ts';
import { WEBHOOK_SECRET_VARIABLES } from '../modules/webhooks/index.ts';
import { createLogger } from '../platform/observability/logger.ts';
import { createPlatform, type Platform } from '../platform/platform.ts';

/** Bad arguments: exit 2 with the usage. */
export class UsageError extends Error {}

/** A command that cannot be carried out as asked, and says why: exit 1. */
export class RefusedError extends Error {}

export interface Command {
  /** One line of the usage: the arguments. */
  usage: string;
  /** What it does, one sentence. */
  summary: string;
  /** Answers the exit code when it is not 0 for a command that did what it was asked (a check that found something). */
  run(args: string[]): Promise<void | number>;
}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseOptions<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Collects problems, then throws them all as one UsageError. */
export class Problems {
  private readonly lines: string[] = [];
  add(line: string): void {
    this.lines.push(line);
  }
  throwIfAny(): void {
    if (this.lines.length > 0) throw new UsageError(this.lines.join('\n'));
  }
}

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export function requireEmail(value: string | undefined, problems: Problems): string {
  const email = value?.trim().toLowerCase();
  if (!email) problems.add('--email is required');
  else if (!EMAIL.test(email)) problems.add(`--email must be an e-mail address (got "${email}")`);
  return email ?? '';
}

/** Runs `work` with the platform of the configured database, closed afterwards whatever happens. */
/** The longest statement bound DATABASE_QUERY_TIMEOUT_MS allows: for commands that read whole tables. */
export const MAX_QUERY_TIMEOUT_MS = 600_000;

export async function withPlatform<T>(
  work: (platform: Platform) => Promise<T>,
  options: { queryTimeoutMs?: number } = {},
): Promise<T> {
  const loaded = loadConfig(process.env, { jobNames: JOB_NAMES, webhookSecrets: WEBHOOK_SECRET_VARIABLES });
  const config = options.queryTimeoutMs
    ? { ...loaded, resilience: { ...loaded.resilience, databaseQueryTimeoutMs: options.queryTimeoutMs } }
    : loaded;
  const platform = await createPlatform(config, {
    logger: createLogger('warn', process.stderr),
    defaultMetrics: false,
  });
  try {
    return await work(platform);
  } finally {
    await platform.close();
  }
}

export const print = (text: string): void => {
  process.stdout.write(`${text}\n`);
};
