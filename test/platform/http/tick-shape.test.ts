// The HTTP server keeps one process.nextTick object alive (src/platform/http/tick-shape.ts, decision 425),
// so that full garbage collections with no tick pending do not drop the tick objects' shape and leave
// Node's optimised nextTick defining each one's keys through V8's runtime. Checked in a child process
// with V8's own test functions: after collections, a new tick object still has the kept one's shape.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('the tick objects’ shape', () => {
  it('is kept across full collections once the HTTP server is made', { timeout: 60_000 }, () => {
    const script = `import { createHook } from 'node:async_hooks';
      import { createHttpServer } from './src/platform/http/server.ts';
      import { heldTickObject } from './src/platform/http/tick-shape.ts';
      const tickObject = (...args) => {
        let made;
        const hook = createHook({ init(id, type, trigger, resource) { if (type === 'TickObject') made ??= resource; } });
        hook.enable();
        process.nextTick(() => {}, ...args);
        hook.disable();
        return made;
      };
      createHttpServer(() => {});
      const held = heldTickObject();
      if (!held) throw new Error('no tick object kept');
      for (let i = 0; i < 4; i++) gc();
      process.stdout.write(JSON.stringify([%HaveSameMap(held, tickObject()), %HaveSameMap(held, tickObject(1, 2))]));`;
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', '--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT, encoding: 'utf8' },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), [true, true]);
  });
});
