// Process entry: configuration, platform, app, listen; a graceful stop on SIGTERM and SIGINT.
// First, before any other module's code runs: one tick object held for good (decision 425).
import './platform/http/tick-shape.ts';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config/config.ts';
import { JOB_NAMES } from './declarations.ts';
import { WEBHOOK_SECRET_VARIABLES } from './modules/webhooks/index.ts';
import { startSummary, startWarnings } from './platform/observability/start-summary.ts';
import { DataDirInUseError } from './platform/db/data-dir-lock.ts';
import { StartError } from './platform/db/start-errors.ts';
import { createPlatform } from './platform/platform.ts';
import { startDraining } from './platform/http/server.ts';

/**
 * How long a stopping server keeps its open connections, answering 503 with `Connection: close` on
 * each, before it closes the idle ones (decision 104).
 */
const DRAIN_MS = 1_000;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env, { jobNames: JOB_NAMES, webhookSecrets: WEBHOOK_SECRET_VARIABLES });
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) process.stderr.write(`config: ${problem}\n`);
      process.exit(1);
    }
    throw error;
  }

  const platform = await createPlatform(config);
  const app = await buildApp(platform);
  await app.listen({
    host: config.server.host,
    port: config.server.port,
    listenTextResolver: (address) => startSummary(config, address, platform.secretSources),
  });
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
    }, config.resilience.shutdownTimeoutMs);
    force.unref();
    // Every answer from now on closes its connection; requests on open connections get a 503.
    startDraining(app.server);
    // Deliveries in progress are aborted at once and their rows given back for a later retry.
    void platform.outbox.stop();
    // Then app.close stops accepting, closes idle connections, waits for in-flight requests, and runs
    // onClose (outbox, cache, db).
    setTimeout(() => {
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'error during shutdown');
          process.exit(1);
        },
      );
    }, DRAIN_MS);
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
  if (error instanceof DataDirInUseError || error instanceof StartError) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
