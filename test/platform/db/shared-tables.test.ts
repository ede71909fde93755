// The audit trail's actions and the outbox's kinds are declared by the modules, each its own list,
// and gathered in one place (src/shared-tables.ts) into the database's CHECKs (decision 179). The
// gathered list is exactly the union of the modules' lists, no value in two of them; the database
// takes every value of it and refuses any other; the runtime tables differ from the migrations'
// only by those two CHECKs; and a module's writer takes only its own values.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import { audit as exchangeAudit } from '../../../src/modules/exchange/exchange.audit.ts';
import { enqueue } from '../../../src/modules/notifications/notifications.outbox.ts';
import * as shared from '../../../src/shared-tables.ts';
import type { Database } from '../../../src/platform/db/database.ts';
import * as platform from '../../../src/platform/db/schema.ts';
import { PROJECT_ROOT } from '../../../src/platform/project-root.ts';
import { testDatabase } from '../../helpers/test-app.ts';

const MODULES = path.join(PROJECT_ROOT, 'src/modules');

/** Every list a module declares in its `<name>.<suffix>.ts` files under an export named `*<exportSuffix>`. */
async function declaredLists(suffix: string, exportSuffix: string): Promise<Map<string, readonly string[]>> {
  const lists = new Map<string, readonly string[]>();
  for (const module of readdirSync(MODULES)) {
    for (const file of readdirSync(path.join(MODULES, module)).filter((name) => name.endsWith(`.${suffix}.ts`))) {
      const exports = (await import(path.join(MODULES, module, file))) as Record<string, unknown>;
      for (const [name, value] of Object.entries(exports)) {
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

describe('audit actions and outbox kinds, declared per module', () => {
  it('gathers exactly the audit actions the modules declare, each once', async () => {
    const lists = await declaredLists('audit', '_AUDIT_ACTIONS');
    assert.ok(lists.size >= 10, `the modules' lists were found (${lists.size})`);
    assertUnionOf(shared.AUDIT_ACTIONS, lists);
  });

  it('gathers exactly the outbox kinds the modules declare, each once', async () => {
    const lists = await declaredLists('outbox', '_OUTBOX_KINDS');
    assert.ok(lists.size >= 1);
    assertUnionOf(shared.OUTBOX_KINDS, lists);
  });

  it('builds the runtime tables like the migrations, but for the CHECKs of the gathered lists', () => {
    const shape = (table: PgTable, without?: string) => {
      const config = getTableConfig(table);
      return {
        name: config.name,
        columns: config.columns.map((c) => [c.name, c.getSQLType(), c.notNull, c.hasDefault, c.primary]),
        indexes: config.indexes.map((i) => i.config.name),
        checks: config.checks.map((c) => c.name).filter((name) => name !== without),
      };
    };
    assert.deepEqual(shape(platform.auditLog), shape(shared.auditLog, 'audit_log_action_check'));
    assert.deepEqual(shape(platform.outbox), shape(shared.outbox, 'outbox_kind_check'));
    assert.ok(getTableConfig(shared.auditLog).checks.some((c) => c.name === 'audit_log_action_check'));
    assert.ok(getTableConfig(shared.outbox).checks.some((c) => c.name === 'outbox_kind_check'));
  });

  describe('in the database', () => {
    let database: Database;
    before(async () => {
      database = await testDatabase();
    });
    after(() => database.close());

    const refusedBy = async (statement: string, constraint: string) => {
      await assert.rejects(database.db.execute(sql.raw(statement)), (error: Error) => {
        assert.match(`${error.message} ${String((error as { cause?: Error }).cause?.message)}`, new RegExp(constraint));
        return true;
      });
    };

    it('takes every gathered audit action and refuses one outside the list', async () => {
      await database.db.transaction(async (tx) => {
        for (const action of shared.AUDIT_ACTIONS) {
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
        for (const kind of shared.OUTBOX_KINDS) {
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
