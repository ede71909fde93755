// What a start says, in one line: where to go, what it runs on, and what it made up for itself; and
// the configurations that work for one instance but lose data or sessions with two.
import path from 'node:path';
import type { Config } from '../../config/config.ts';
import type { GeneratedSecret, SecretSource } from '../crypto/data-dir-secrets.ts';
import { postgresAddress, viaSocket } from '../db/postgres-address.ts';

/**
 * host:port/database of PostgreSQL's URL, or the socket's path and (database): without user or password.
 */
function databaseOf(url: string): string {
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!database) return postgresAddress(parsed);
  return viaSocket(parsed) ? `${postgresAddress(parsed)} (${database})` : `${postgresAddress(parsed)}/${database}`;
}

/** host:port of Redis's URL, without user or password. */
function cacheOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '6379'}`;
}

function shown(dir: string): string {
  const relative = path.relative(process.cwd(), dir);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? `./${relative}` : dir;
}

export function startSummary(
  config: Config,
  address: string,
  secretSources: Readonly<Record<GeneratedSecret, SecretSource>>,
): string {
  const database = config.databaseUrl
    ? `PostgreSQL ${databaseOf(config.databaseUrl)}`
    : `PGlite ${shown(path.join(config.dataDir, 'pglite'))}`;
  const cache = config.redisUrl ? `Redis ${cacheOf(config.redisUrl)}` : 'in-process';
  const scheduler =
    config.jobs.scheduler === 'internal' ? 'internal' : 'off (jobs run when POST /api/scheduled/<job> is called)';
  const market =
    config.market.source === 'simulated'
      ? 'simulated'
      : `binance (live stream ${config.market.liveStream ? 'on' : 'off'})`;
  const generated = (Object.keys(secretSources) as GeneratedSecret[]).filter(
    (name) => secretSources[name] === 'generated',
  );
  const secrets = generated.length > 0 ? `; generated ${generated.join(' and ')} into ${shown(config.dataDir)}` : '';
  return (
    `listening at ${address}, console at ${address}/console, API docs at ${address}/docs; database ${database}; ` +
    `cache ${cache}; scheduler ${scheduler}; market data ${market}${secrets}`
  );
}

/** Warnings a start logs about its configuration. */
export function startWarnings(config: Config): string[] {
  const fromFiles = [
    config.secrets.jwtSecret === undefined && 'JWT_SECRET',
    config.secrets.encryptionKey === undefined && 'ENCRYPTION_KEY',
  ].filter((name) => name !== false);
  if (!config.databaseUrl || fromFiles.length === 0) return [];
  return [
    `${fromFiles.join(' and ')} ${fromFiles.length > 1 ? 'come' : 'comes'} from ${shown(config.dataDir)} while ` +
      'the database is shared (DATABASE_URL): every instance on this database needs the same values, or tokens ' +
      'signed by one are refused by another and exchange keys sealed by one cannot be read by another; set them ' +
      'in the environment of each instance',
  ];
}
