// Process entry: configuration, platform, app, listen; a graceful stop on SIGTERM and SIGINT.
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config/config.ts';
import { startSummary, startWarnings } from './platform/observability/start-summary.ts';
import { DataDirInUseError } from './platform/db/data-dir-lock.ts';
import { createPlatform } from './platform/platform.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) process.stderr.write(`config: ${problem}\n`);
      process.exit(1);
    }
    throw error;
  }

  const platform = await createPlatform(config);
  const app = await buildApp(platform);
  await app.listen({ host: config.server.host, port: config.server.port, listenTextResolver: (address) => startSummary(config, address, platform.secretSources) });
  for (const warning of startWarnings(config)) app.log.warn(warning);
  platform.outbox.start();

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => {
      app.log.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, 25_000);
    force.unref();
    // app.close stops accepting, waits for in-flight requests, then runs onClose (outbox, cache, db).
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  // DATA_DIR cannot hold the secrets kept for you: a configuration problem, reported the same way.
  if (error instanceof ConfigError) {
    for (const problem of error.problems) process.stderr.write(`config: ${problem}\n`);
    process.exit(1);
  }
  if (error instanceof DataDirInUseError) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
