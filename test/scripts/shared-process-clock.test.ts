// A file that moves its process's clock or time zone and does not set them back fails in a shared
// process, and the files after it there run on the real clock in the process's zone (decision 660).
// The runner runs for real, on files written here, one at a time in one shared process; they move
// the clock in ways the runner's reading of a file does not see, as a mistake would.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
// The runner's processes start with this process's environment, so in this process's zone.
const ZONE = new Intl.DateTimeFormat().resolvedOptions().timeZone;
const OTHER_ZONE = ZONE === 'Asia/Tokyo' ? 'America/Lima' : 'Asia/Tokyo';

const files = {
  'leaves-zone.test.ts': `import { it } from 'node:test';
it('sets a zone and leaves it', () => {
  Reflect.set(process.env, 'TZ', '${OTHER_ZONE}');
});
`,
  'leaves-date.test.ts': `import { it, mock } from 'node:test';
it('mocks Date and leaves it', () => {
  const { timers } = mock;
  timers.enable({ apis: ['Date'], now: Date.UTC(2040, 0, 1) });
});
`,
  'after-them.test.ts': `import assert from 'node:assert/strict';
import { it } from 'node:test';
it('runs on the real clock, in the zone the process had', () => {
  assert.equal(process.env.TZ, ${JSON.stringify(process.env.TZ)});
  assert.equal(new Intl.DateTimeFormat().resolvedOptions().timeZone, '${ZONE}');
  assert.ok(Math.abs(Date.now() - (performance.timeOrigin + performance.now())) < 60_000, new Date().toISOString());
});
`,
};

describe('a shared process keeps its clock and time zone from file to file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tp-clock-'));
  const outcomes = new Map<string, string>();
  let output = '';
  before(async () => {
    for (const [name, source] of Object.entries(files)) writeFileSync(path.join(dir, name), source);
    const env = { ...process.env, TEST_CONCURRENCY: '1' };
    const runner = spawn(
      process.execPath,
      ['scripts/run-tests.mjs', ...Object.keys(files).map((name) => path.join(dir, name))],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    runner.stdout.on('data', (chunk) => (output += chunk));
    runner.stderr.on('data', (chunk) => (output += chunk));
    await new Promise((resolve) => runner.on('close', resolve));
    for (const [, name, outcome] of output.matchAll(/^# \S*\/([\w-]+\.test\.ts) \(.*shared process\)(.*)$/gm))
      outcomes.set(name, outcome.trim());
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('fails a file that leaves the zone moved', () => {
    assert.match(outcomes.get('leaves-zone.test.ts') ?? 'not run shared', /FAILED/, output);
    const reason = `the file left its process's clock moved (TZ set to ${OTHER_ZONE})`;
    assert.ok(output.includes(reason), output);
  });

  it('fails a file that leaves Date mocked', () => {
    assert.match(outcomes.get('leaves-date.test.ts') ?? 'not run shared', /FAILED/, output);
    assert.match(output, /the file left its process's clock moved \(Date mocked\)/);
  });

  it('sets them back for the files after it', () => {
    assert.equal(outcomes.get('after-them.test.ts'), '', output);
  });
});
