import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../config/config.ts';
import { resolveSecrets } from '../crypto/data-dir-secrets.ts';
import { startSummary, startWarnings } from './start-summary.ts';

const KEYS = { JWT_SECRET: 'j'.repeat(40), ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') };
const dataDir = () => mkdtempSync(path.join(tmpdir(), 'tp-summary-'));

describe('the start line', () => {
  it(
    'names the docs, the embedded database, the cache, the scheduler, the market ' +
      'source and the secrets it generated',
    () => {
      const dir = dataDir();
      const config = loadConfig({ DATA_DIR: dir });
      const line = startSummary(config, 'http://127.0.0.1:8000', resolveSecrets(config).sources);
      assert.equal(
        line,
        'listening at http://127.0.0.1:8000, console at http://127.0.0.1:8000/console, API docs at ' +
          `http://127.0.0.1:8000/docs; database PGlite ${path.join(dir, 'pglite')}; cache in-process; scheduler ` +
          'off (jobs run when POST /api/scheduled/<job> is called); market data binance (live stream on); ' +
          `generated JWT_SECRET and ENCRYPTION_KEY into ${dir}`,
      );
      // The next start reads them back from the files: nothing was generated.
      assert.doesNotMatch(startSummary(config, 'http://127.0.0.1:8000', resolveSecrets(config).sources), /generated/);
    },
  );

  it('names PostgreSQL and Redis by host, port and database, never with their passwords', () => {
    const config = loadConfig({
      ...KEYS,
      DATA_DIR: dataDir(),
      DATABASE_URL: 'postgres://app:db-s3cret@db.internal:6543/trading',
      REDIS_URL: 'redis://:redis-s3cret@cache.internal',
      SCHEDULER: 'internal',
      MARKET_DATA_SOURCE: 'simulated',
    });
    const line = startSummary(config, 'http://0.0.0.0:8000', resolveSecrets(config).sources);
    assert.match(
      line,
      /database PostgreSQL db\.internal:6543\/trading; cache Redis cache\.internal:6379; scheduler internal; market data simulated$/,
    );
    assert.doesNotMatch(line, /s3cret|app:/);
  });

  it("names where PostgreSQL's URL connects: its host parameter, a socket's directory or a host", () => {
    const databaseOf = (url: string) => {
      const config = loadConfig({ ...KEYS, DATA_DIR: dataDir(), DATABASE_URL: url });
      const line = startSummary(config, 'http://127.0.0.1:8000', resolveSecrets(config).sources);
      assert.doesNotMatch(line, /s3cret/);
      return line.match(/; database PostgreSQL (.*?); cache/)?.[1];
    };
    assert.equal(
      databaseOf('postgres://app:db-s3cret@localhost/trading?host=/var/run/postgresql'),
      '/var/run/postgresql/.s.PGSQL.5432 (trading)',
    );
    assert.equal(databaseOf('postgres:///trading?host=/tmp/&port=5433&user=app'), '/tmp/.s.PGSQL.5433 (trading)');
    assert.equal(
      databaseOf('postgres://app@db.internal/trading?host=replica.internal'),
      'replica.internal:5432/trading',
    );
  });

  it('warns when instances share a database but their keys come from the data directory', () => {
    const shared = { DATA_DIR: dataDir(), DATABASE_URL: 'postgres://127.0.0.1/test' };
    const [warning, ...rest] = startWarnings(loadConfig(shared));
    assert.match(warning!, /^JWT_SECRET and ENCRYPTION_KEY come from .* while the database is shared \(DATABASE_URL\)/);
    assert.deepEqual(rest, []);
    assert.deepEqual(
      startWarnings(loadConfig({ ...shared, ...KEYS })),
      [],
      'configured in the environment: nothing to say',
    );
    assert.deepEqual(startWarnings(loadConfig({ DATA_DIR: dataDir() })), [], 'one embedded instance: nothing to say');
  });
});
