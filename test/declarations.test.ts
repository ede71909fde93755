// Each module declares what it contributes once, in its `<module>.module.ts`, and src/declarations.ts
// derives every list from those declarations (decision 230). A file that contributes (a table, an
// audit list, events, a job, kept figures, routines) and that its module's declaration does not name
// would be silently left out: these tests find every such file and fail until it is declared. The
// gathered audit actions and outbox kinds are exactly the union of the modules' lists; the database
// takes every value of them and refuses any other; the runtime tables differ from the migrations' only
// by the CHECKs of declared values; a module's writer takes only its own values (decision 179); and the
// modules app.ts builds are exactly the declared ones, so a module listed in one place only fails.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { declaredSchema } from '../src/db-schema.ts';
import * as declared from '../src/declarations.ts';
import { audit as exchangeAudit } from '../src/modules/exchange/exchange.audit.ts';
import { scheduledJobRuns, scheduledJobClaims } from '../src/modules/jobs/jobs.tables.ts';
import { enqueue } from '../src/modules/notifications/notifications.outbox.ts';
import { streamEvents } from '../src/modules/streams/streams.tables.ts';
import type { Database } from '../src/platform/db/database.ts';
import * as platform from '../src/platform/db/schema.ts';
import { modulesOf, type ModuleDeclaration } from '../src/platform/module.ts';
import { PROJECT_ROOT } from '../src/platform/project-root.ts';
import { buildTestApp, testDatabase } from './helpers/test-app.ts';

const MODULES = path.join(PROJECT_ROOT, 'src/modules');
const FOLDERS = readdirSync(MODULES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const declarationOf = (folder: string): ModuleDeclaration | undefined =>
  (declared.MODULE_DECLARATIONS as readonly ModuleDeclaration[]).find((module) => module.name === folder);
const filesOf = (folder: string, suffix: string) =>
  readdirSync(path.join(MODULES, folder)).filter((name) => name.endsWith(suffix));
const exportsOf = async (folder: string, file: string) =>
  (await import(path.join(MODULES, folder, file))) as Record<string, unknown>;

/** Every list a module declares in its `<name>.<suffix>.ts` files under an export named `*<exportSuffix>`. */
async function declaredLists(suffix: string, exportSuffix: string): Promise<Map<string, readonly string[]>> {
  const lists = new Map<string, readonly string[]>();
  for (const module of FOLDERS) {
    for (const file of filesOf(module, `.${suffix}.ts`)) {
      for (const [name, value] of Object.entries(await exportsOf(module, file))) {
        if (name.endsWith(exportSuffix)) lists.set(`${module}/${file}#${name}`, value as readonly string[]);
      }
    }
  }
  return lists;
}

function assertUnionOf(gathered: readonly string[], lists: Map<string, readonly string[]>) {
  const owners = new Map<string, string[]>();
  for (const [where, values] of lists)
    for (const value of values) owners.set(value, [...(owners.get(value) ?? []), where]);
  const twice = [...owners].filter(([, where]) => where.length > 1);
  assert.deepEqual(twice, [], 'no value is declared by two lists');
  assert.equal(new Set(gathered).size, gathered.length, 'the gathered list holds no value twice');
  assert.deepEqual([...gathered].sort(), [...owners.keys()].sort(), 'the gathered list is the union of the modules');
}

describe("the modules' declarations", () => {
  it('hold one declaration per module folder, named for it, each once', () => {
    const names = declared.MODULE_DECLARATIONS.map((module) => module.name);
    assert.deepEqual([...names].sort(), [...FOLDERS].sort());
  });

  it("name every table of every module's *.tables.ts", async () => {
    const schema = Object.values(declaredSchema()).map((table) => getTableConfig(table).name);
    for (const folder of FOLDERS) {
      for (const file of filesOf(folder, '.tables.ts')) {
        for (const [name, value] of Object.entries(await exportsOf(folder, file))) {
          if (is(value, PgTable))
            assert.ok(schema.includes(getTableConfig(value).name), `${folder}/${file}#${name} is declared`);
        }
      }
    }
    assert.equal(new Set(schema).size, schema.length, 'no table is declared twice');
  });

  it("name every module's audit actions, outbox kinds and events, as its own", async () => {
    const lists = [
      ['.audit.ts', '_AUDIT_ACTIONS', 'auditActions'],
      ['.outbox.ts', '_OUTBOX_KINDS', 'outboxKinds'],
      ['.events.ts', '_EVENTS', 'events'],
    ] as const;
    for (const folder of FOLDERS) {
      for (const [suffix, exportSuffix, key] of lists) {
        for (const file of filesOf(folder, suffix)) {
          for (const [name, value] of Object.entries(await exportsOf(folder, file))) {
            // NOTIFY_EVENTS (notifications' preferences) are not stream events: only `<module>.events.ts` holds those.
            if (name.endsWith(exportSuffix))
              assert.equal(declarationOf(folder)?.[key], value, `${folder}/${file}#${name} is its ${key}`);
          }
        }
      }
    }
  });

  it("name every module's jobs and kept figures", async () => {
    for (const folder of FOLDERS) {
      const declaration = declarationOf(folder);
      for (const file of filesOf(folder, '.job.ts')) {
        const jobs = Object.values(await exportsOf(folder, file)).filter(
          (value) => typeof value === 'object' && value !== null && 'cron' in value && 'run' in value,
        );
        assert.ok(jobs.length > 0, `${folder}/${file} defines a job`);
        for (const job of jobs) assert.ok(declaration?.jobs?.includes(job as never), `${folder}/${file} is declared`);
      }
      for (const file of filesOf(folder, '.figures.ts')) {
        const figures = Object.values(await exportsOf(folder, file)).filter(
          (value) => typeof value === 'object' && value !== null && 'recomputed' in value,
        );
        for (const figure of figures)
          assert.ok(declaration?.figures?.includes(figure as never), `${folder}/${file}: ${JSON.stringify(figure)}`);
      }
    }
  });

  it("name every module's routines file", () => {
    for (const folder of FOLDERS)
      assert.deepEqual([...(declarationOf(folder)?.routines ?? [])].sort(), filesOf(folder, '.routines.sql').sort());
  });

  it('give each job a unique name and a default cron', () => {
    assert.equal(new Set(declared.JOB_NAMES).size, declared.JOB_NAMES.length);
    // Five fields, or six with croner's leading seconds (reconcile-orders runs every 30 s).
    for (const job of declared.JOB_DEFINITIONS) assert.match(job.cron, /^\S+( \S+){4,5}$/, job.name);
  });

  it('gathers exactly the audit actions the modules declare, each once', async () => {
    const lists = await declaredLists('audit', '_AUDIT_ACTIONS');
    assert.ok(lists.size >= 10, `the modules' lists were found (${lists.size})`);
    assertUnionOf(declared.AUDIT_ACTIONS, lists);
  });

  it('gathers exactly the outbox kinds the modules declare, each once', async () => {
    const lists = await declaredLists('outbox', '_OUTBOX_KINDS');
    assert.ok(lists.size >= 1);
    assertUnionOf(declared.OUTBOX_KINDS, lists);
  });

  it('builds the runtime tables like the migrations, but for the CHECKs of the declared values', () => {
    const shape = (table: PgTable, without?: string) => {
      const config = getTableConfig(table);
      return {
        name: config.name,
        columns: config.columns.map((c) => [c.name, c.getSQLType(), c.notNull, c.hasDefault, c.primary]),
        indexes: config.indexes.map((i) => i.config.name),
        checks: config.checks.map((c) => c.name).filter((name) => name !== without),
      };
    };
    const schema = declaredSchema();
    const pairs = [
      [platform.auditLog, schema.auditLog, 'audit_log_action_check'],
      [platform.outbox, schema.outbox, 'outbox_kind_check'],
      [scheduledJobRuns, schema['jobs:scheduledJobRuns'], 'scheduled_job_runs_job_check'],
      [scheduledJobClaims, schema['jobs:scheduledJobClaims'], 'scheduled_job_claims_job_check'],
      [streamEvents, schema['streams:streamEvents'], 'stream_events_type_check'],
    ] as const;
    for (const [runtime, migrated, check] of pairs) {
      assert.deepEqual(shape(runtime), shape(migrated, check));
      assert.ok(
        getTableConfig(migrated).checks.some((c) => c.name === check),
        check,
      );
    }
  });

  it('are the modules the app builds, one for one', async () => {
    const app = await buildTestApp();
    try {
      const built = modulesOf(app.modules).map((module) => module.name);
      assert.equal(new Set(built).size, built.length, 'no module is built twice');
      assert.deepEqual(
        [...built].sort(),
        declared.MODULE_DECLARATIONS.map((module) => module.name).sort(),
        'createModules builds every declared module and no other',
      );
    } finally {
      await app.close();
    }
  });

  describe('in the database', () => {
    let database: Database;
    before(async () => {
      database = await testDatabase();
    });

    const refusedBy = async (statement: string, constraint: string) => {
      await assert.rejects(database.db.execute(sql.raw(statement)), (error: Error) => {
        assert.match(`${error.message} ${String((error as { cause?: Error }).cause?.message)}`, new RegExp(constraint));
        return true;
      });
    };

    it('takes every gathered audit action and refuses one outside the list', async () => {
      await database.db.transaction(async (tx) => {
        for (const action of declared.AUDIT_ACTIONS) {
          await tx.execute(sql`INSERT INTO audit_log (actor_type, action) VALUES ('system', ${action})`);
        }
        await tx.execute(sql`DELETE FROM audit_log`);
      });
      await refusedBy(
        `INSERT INTO audit_log (actor_type, action) VALUES ('system', 'exchange.credential.teleport')`,
        'audit_log_action_check',
      );
    });

    it('takes every gathered outbox kind and refuses one outside the list', async () => {
      await database.db.transaction(async (tx) => {
        for (const kind of declared.OUTBOX_KINDS) {
          await tx.execute(sql`INSERT INTO outbox (kind, payload) VALUES (${kind}, '{}')`);
        }
        await tx.execute(sql`DELETE FROM outbox`);
      });
      await refusedBy(`INSERT INTO outbox (kind, payload) VALUES ('sms.send', '{}')`, 'outbox_kind_check');
    });
  });
});

/** Never called: the compiler checks that a module's writer takes its own values only (`npm run typecheck`). */
export function writersAreTypedByTheirModule(db: Database['db'], now: Date) {
  void exchangeAudit({ actorType: 'user', action: 'exchange.credential.create' }, now, db);
  // @ts-expect-error: another module's action
  void exchangeAudit({ actorType: 'user', action: 'auth.login' }, now, db);
  // @ts-expect-error: an action no module declares
  void exchangeAudit({ actorType: 'user', action: 'exchange.credential.teleport' }, now, db);
  void enqueue({ kind: 'mail.send', payload: {} }, now, db);
  // @ts-expect-error: a kind no module declares
  void enqueue({ kind: 'sms.send', payload: {} }, now, db);
}
