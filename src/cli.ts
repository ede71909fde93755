// Operator commands, run against the configured database (DATA_DIR or DATABASE_URL):
//   npm run cli -- users:create --email E --password P [--role user|admin] [--first-name F] [--last-name L]
// With embedded PGlite, stop the server first: PGlite files take one process at a time.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config/config.ts';
import { createAuthModule } from './modules/auth/index.ts';
import { AppError } from './platform/http/errors.ts';
import { createLogger } from './platform/observability/logger.ts';
import { createPlatform } from './platform/platform.ts';

const USAGE = `usage:
  npm run cli -- users:create --email <email> --password <password> [--role user|admin] [--first-name <name>] [--last-name <name>]`;

const ROLES = ['user', 'admin'] as const;

/** Bad arguments: exit 2 with the usage. */
class UsageError extends Error {}

interface CreateUserArgs {
  email: string;
  password: string;
  role: (typeof ROLES)[number];
  firstName?: string;
  lastName?: string;
}

function parseUsersCreate(args: string[]): CreateUserArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        email: { type: 'string' },
        password: { type: 'string' },
        role: { type: 'string', default: 'user' },
        'first-name': { type: 'string' },
        'last-name': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const problems: string[] = [];
  const email = values.email?.trim();
  if (!email) problems.push('--email is required');
  else if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) problems.push(`--email must be an e-mail address (got "${email}")`);
  const password = values.password;
  if (!password) problems.push('--password is required');
  else if (password.length < 8 || password.length > 128) problems.push('--password must be 8 to 128 characters');
  const role = values.role as CreateUserArgs['role'];
  if (!ROLES.includes(role)) problems.push(`--role must be one of ${ROLES.join(', ')} (got "${values.role}")`);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  return { email: email!, password: password!, role, firstName: values['first-name'], lastName: values['last-name'] };
}

async function usersCreate(args: string[]): Promise<void> {
  const input = parseUsersCreate(args);
  const config = loadConfig();
  // Logs go to stderr and only when something is wrong; stdout carries the command's answer.
  const platform = await createPlatform(config, { logger: createLogger('warn', process.stderr), defaultMetrics: false });
  try {
    const auth = createAuthModule(platform);
    const user = await auth.service.createUser(input, 'system');
    process.stdout.write(`created ${user.role} ${user.email} (id ${user.id})\n`);
  } finally {
    await platform.close();
  }
}

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = { 'users:create': usersCreate };

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const run = command ? COMMANDS[command] : undefined;
  if (!run) {
    process.stderr.write(`${command ? `unknown command "${command}"\n` : ''}${USAGE}\n`);
    return 2;
  }
  try {
    await run(args);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      for (const line of error.message.split('\n')) process.stderr.write(`error: ${line}\n`);
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      for (const problem of error.problems) process.stderr.write(`config: ${problem}\n`);
      return 1;
    }
    if (error instanceof AppError && error.status < 500) {
      process.stderr.write(`error: ${typeof error.detail === 'string' ? error.detail : error.message}\n`);
      return 1;
    }
    process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
