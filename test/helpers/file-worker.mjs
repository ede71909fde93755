// A process that runs many test files one after another, so that they share what each file's own
// process would pay again: Node, the app's modules (tsx, typebox, fastify, drizzle, ccxt) and one
// PGlite opened from the run's image, ~3.5 s of CPU a file (decision 300). scripts/run-tests.mjs sends
// one file at a time over IPC and the next once file-worker-reporter.mjs has sent the file's report.
//
// Each file is one suite of its own (named by its path), made by importing the file inside it: the
// file's top-level tests and hooks (before, after, beforeEach) belong to that suite alone, as they
// belonged to the file's process, and the next file starts after its last `after`. The database is
// emptied before each file, as buildTestApp empties it before each test, and closed after the last
// (TEST_SHARED_PROCESS, set by the runner, keeps test-app.ts from closing it after the first).
import { describe } from 'node:test';
import { pathToFileURL } from 'node:url';
import { closeTestDatabase, emptyTestDatabase } from './test-app.ts';
import { fileStarted } from './file-worker-reporter.mjs';

process.on('message', (message) => {
  if (message.done) {
    // Then nothing holds the process any more: node:test ends its run and the process exits.
    closeTestDatabase()
      .catch((error) => {
        process.exitCode = 1;
        console.error(`✖ closing the database after the last file: ${error?.stack ?? error}`);
      })
      .finally(() => process.disconnect());
    return;
  }
  fileStarted(message.name);
  describe(message.name, async () => {
    await emptyTestDatabase();
    await import(pathToFileURL(message.file).href);
  });
});
process.send({ ready: true });
