// Why a start could not open the database, in one line naming the setting to correct: the failures
// DATABASE_URL itself can cause (a database that does not exist, nothing listening, a host that
// does not resolve or does not answer, a refused user or password, a socket that is not there).
// Anything else keeps its stack.
import { postgresAddress, postgresHost, postgresPort, viaSocket } from './postgres-address.ts';

/** A start that cannot go on for a reason the operator corrects in a setting; its message is one line. */
export class StartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartError';
  }
}

interface ConnectionFailure {
  code?: string;
  message?: string;
  errors?: unknown[];
}

/** The one-line StartError for a failure to open PostgreSQL at `databaseUrl`, or undefined when it is not one. */
export function databaseStartError(
  error: unknown,
  databaseUrl: string,
  connectTimeoutMs: number,
): StartError | undefined {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return undefined;
  }
  const failure = (error ?? {}) as ConnectionFailure;
  // Node reports a host with several addresses (localhost: ::1 and 127.0.0.1) as an AggregateError.
  const code = failure.code ?? (failure.errors?.[0] as ConnectionFailure | undefined)?.code;
  const named = decodeURIComponent(url.username) || url.searchParams.get('user');
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || named || 'postgres';
  const user = named || 'the default user';
  const where = postgresAddress(url);
  const line = (text: string) => new StartError(`DATABASE_URL: ${text}`, { cause: error });
  switch (code) {
    case '3D000':
      return line(
        `the database "${database}" does not exist on ${where}; create it (e.g. createdb ` +
          `-h ${postgresHost(url)} -p ${postgresPort(url)} ${database}) or name an existing one`,
      );
    case '28P01':
      return line(`PostgreSQL at ${where} refused the password of user "${user}"`);
    case '28000':
      return line(
        `PostgreSQL at ${where} refused user "${user}" (no such role, or pg_hba.conf ` +
          'does not allow this connection)',
      );
    case 'ECONNREFUSED':
      return line(
        `nothing accepts connections at ${where} (connection refused); start PostgreSQL ` +
          'there or correct the host and port',
      );
    case 'ENOENT':
      // A socket's directory without the socket: no server there, or another port's.
      if (viaSocket(url))
        return line(
          `no PostgreSQL socket at ${where}; start PostgreSQL there or correct the host (its socket directory) and port`,
        );
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return line(`the host "${postgresHost(url)}" cannot be resolved`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return line(`${where} cannot be reached (${code})`);
    default:
      break;
  }
  if (typeof failure.message === 'string' && /timeout/i.test(failure.message) && /connect/i.test(failure.message)) {
    return line(`no answer from ${where} within ${connectTimeoutMs} ms (DATABASE_CONNECT_TIMEOUT_MS)`);
  }
  return undefined;
}
