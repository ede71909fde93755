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
import { readdirSync, readFileSync } from 'node:fs';
import { after, describe } from 'node:test';
import { pathToFileURL } from 'node:url';
import { closeTestDatabase, emptyTestDatabase } from './test-app.ts';
import { fileStarted } from './file-worker-reporter.mjs';

/**
 * The processes a file started that still run (Linux; elsewhere none are seen): this process's
 * children but the TypeScript loader's esbuild service, which belongs to the process.
 */
function runningChildren() {
  try {
    const tasks = `/proc/${process.pid}/task`;
    return readdirSync(tasks)
      .flatMap((task) => readFileSync(`${tasks}/${task}/children`, 'utf8').split(' ').filter(Boolean))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'esbuild';
        } catch {
          return false;
        }
      })
      .map(Number);
  } catch {
    return [];
  }
}

// The process's clock and time zone as the first file found them. A file may move them for a while
// (`mock.timers`, test/helpers/time-zone.ts) but must set them back: what the files after it do would
// otherwise run on its clock or in its zone (decision 660).
const realDate = Date;
const zone = process.env.TZ;
const localZone = () => new Intl.DateTimeFormat().resolvedOptions().timeZone;
const intlZone = localZone();

/** What the file left moved, set back; undefined when nothing was. */
function clockLeftMoved() {
  const moved = [];
  if (globalThis.Date !== realDate) {
    moved.push('Date mocked');
    globalThis.Date = realDate;
  }
  if (process.env.TZ !== zone) {
    moved.push(`TZ set to ${process.env.TZ}`);
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
  if (localZone() !== intlZone) moved.push(`the local time zone at ${localZone()}`);
  return moved.length > 0 ? moved.join(', ') : undefined;
}

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
    // After the file's own hooks: a process it started (a browser) and left running would keep this
    // one from ending, and its CPU time would be counted for no file (only a process waited for is).
    after(() => {
      const moved = clockLeftMoved();
      if (moved) throw new Error(`the file left its process's clock moved (${moved}); set back for the files after it`);
    });
    after(() => {
      const left = runningChildren();
      if (left.length === 0) return;
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Ended meanwhile.
        }
      }
      throw new Error(`the file left ${left.length} process(es) running (${left.join(', ')}); they were killed`);
    });
  });
});
process.send({ ready: true });
