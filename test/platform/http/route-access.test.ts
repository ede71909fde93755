// Who may call each route, compared with a committed snapshot (route-access.snapshot.json). The
// authorization sweep checks each operation against what /openapi.json says, but the guards write that
// document themselves (documentGuard): a route moved to a weaker guard changes both at once and the
// sweep still agrees. This file is the independent record: a change of a route's role, scopes or
// step-up, and a route added or removed, fails here until the snapshot is updated on purpose:
//   UPDATE_ROUTE_SNAPSHOT=1 npm test -- test/platform/http/route-access.test.ts
// and the diff of the snapshot is what review reads.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const SNAPSHOT = new URL('./route-access.snapshot.json', import.meta.url);
const REGENERATE = 'UPDATE_ROUTE_SNAPSHOT=1 npm test -- test/platform/http/route-access.test.ts';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

interface Access {
  method: string;
  path: string;
  /** `public`, `user`, `admin`, or the other scheme's name (a job secret, a signature, a ticket). */
  role: string;
  /** What an API token needs (`x-scopes`); absent where no bearer token is taken. */
  scopes?: string[];
  /** A fresh second factor is wanted (`x-step-up`). */
  stepUp?: true;
}

interface DocumentedOperation {
  security?: Record<string, string[]>[];
  'x-scopes'?: string[];
  'x-step-up'?: boolean;
}

function roleOf(security: DocumentedOperation['security']): string {
  if (!security || security.length === 0 || security.some((alternative) => Object.keys(alternative).length === 0))
    return 'public';
  const schemes = security.flatMap((alternative) => Object.entries(alternative));
  if (schemes.some(([name, roles]) => name === 'bearerAuth' && roles.includes('admin'))) return 'admin';
  if (schemes.some(([name]) => name === 'bearerAuth')) return 'user';
  return schemes
    .map(([name]) => name)
    .sort()
    .join('+');
}

describe('route access', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  it('matches the committed snapshot: method, path, role, scopes and step-up of every route', () => {
    const document = t.app.swagger() as { paths: Record<string, Record<string, DocumentedOperation>> };
    const actual: Access[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = operations[method];
        if (!operation) continue;
        actual.push({
          method: method.toUpperCase(),
          path,
          role: roleOf(operation.security),
          ...(operation['x-scopes'] ? { scopes: operation['x-scopes'] } : {}),
          ...(operation['x-step-up'] ? { stepUp: true as const } : {}),
        });
      }
    }
    actual.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
    // One route a line where it fits in 120 columns, as the formatter (biome) writes it, so a change
    // is a small diff and `npm run lint` finds nothing to reformat.
    const field = ([name, value]: [string, unknown]) =>
      `${JSON.stringify(name)}: ${JSON.stringify(value).replaceAll('","', '", "')}`;
    const entry = (access: Access, last: boolean) => {
      const fields = Object.entries(access).map(field);
      const flat = `  { ${fields.join(', ')} }${last ? '' : ','}`;
      return flat.length <= 120 ? flat : `  {\n${fields.map((f) => `    ${f}`).join(',\n')}\n  }${last ? '' : ','}`;
    };
    const text = `[\n${actual.map((access, i) => entry(access, i === actual.length - 1)).join('\n')}\n]\n`;
    if (process.env.UPDATE_ROUTE_SNAPSHOT === '1') {
      writeFileSync(SNAPSHOT, text);
      return;
    }
    let expected: Access[];
    try {
      expected = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Access[];
    } catch {
      assert.fail(`no route snapshot yet; write it with ${REGENERATE}`);
    }
    const key = (access: Access) => `${access.method} ${access.path}`;
    const before = new Map(expected.map((access) => [key(access), access]));
    const now = new Map(actual.map((access) => [key(access), access]));
    const changes = [
      ...actual.filter((access) => !before.has(key(access))).map((access) => `added ${key(access)}`),
      ...expected.filter((access) => !now.has(key(access))).map((access) => `removed ${key(access)}`),
      ...actual
        .filter((access) => before.has(key(access)))
        .filter((access) => JSON.stringify(access) !== JSON.stringify(before.get(key(access))))
        .map((access) => `changed ${JSON.stringify(before.get(key(access)))} -> ${JSON.stringify(access)}`),
    ];
    assert.deepEqual(
      changes,
      [],
      `the routes' access differs from test/platform/http/route-access.snapshot.json. If the change is ` +
        `meant, update the snapshot with\n  ${REGENERATE}\nand commit it with the change.`,
    );
  });
});
