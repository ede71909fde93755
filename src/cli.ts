// Operator commands, run against the configured database (DATA_DIR or DATABASE_URL):
//   npm run cli -- help
// The embedded database serves one process at a time: with a server running on it, commands that
// open it refuse (exit 1) and say so; on PostgreSQL they run beside the servers.
import { ConfigError } from './config/config.ts';
import { DB_COMMANDS } from './cli/db.commands.ts';
import { RefusedError, UsageError, type Command } from './cli/cli-kit.ts';
import { USER_COMMANDS } from './cli/users.commands.ts';
import { DataDirInUseError } from './platform/db/data-dir-lock.ts';
import { StartError } from './platform/db/start-errors.ts';
import { AppError } from './platform/http/errors.ts';

const COMMANDS: Record<string, Command> = { ...USER_COMMANDS, ...DB_COMMANDS };

const USAGE = [
  'usage: npm run cli -- <command> [options]',
  '',
  'commands:',
  ...Object.values(COMMANDS).flatMap((command) => [`  ${command.usage}`, `      ${command.summary}`]),
  '  help',
  '      Show this.',
  '',
  'Configuration comes from the environment, as for npm start (DATA_DIR, DATABASE_URL, ...).',
  'Exit codes: 0 done, 1 refused or failed, 2 bad arguments.',
].join('\n');

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const run = command ? COMMANDS[command] : undefined;
  if (!run) {
    process.stderr.write(`${command ? `unknown command "${command}"\n` : ''}${USAGE}\n`);
    return 2;
  }
  try {
    return (await run.run(args)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      for (const line of error.message.split('\n')) process.stderr.write(`error: ${line}\n`);
      process.stderr.write(`usage: npm run cli -- ${run.usage}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      for (const problem of error.problems) process.stderr.write(`config: ${problem}\n`);
      return 1;
    }
    if (
      error instanceof DataDirInUseError ||
      error instanceof StartError ||
      error instanceof RefusedError ||
      (error instanceof AppError && error.status < 500)
    ) {
      process.stderr.write(
        `error: ${error instanceof AppError && typeof error.detail === 'string' ? error.detail : error.message}\n`,
      );
      return 1;
    }
    process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
