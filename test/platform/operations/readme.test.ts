// The README is followed literally by new users, often from a script or CI step: its commands must
// run in a non-interactive shell, and it must say what the first hour runs into.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('the README, as a new user follows it', () => {
  it('every npx command it gives answers its own prompt (--yes): a non-interactive shell cannot', () => {
    // Commands: in `code`, or at the start of a line of a shell block.
    const commands = [...README.matchAll(/(?:^|`|&& )(npx\b[^`\n]*)/gm)].map((match) => match[1]!);
    assert.ok(commands.length > 0);
    assert.deepEqual(
      commands.filter((command) => !/^npx (--yes|-y)\b/.test(command)),
      [],
    );
  });

  it('says that a PostgreSQL database must exist, and that a start naming a missing one stops with one line', () => {
    assert.match(README, /database named in `DATABASE_URL` must exist/);
    assert.match(README, /createdb/);
  });

  it('says that a used refresh token presented again signs the session out', () => {
    assert.match(README, /used refresh token again is\s+taken as a leak and signs that session out/);
  });

  it('does not promise that a start prints only one line: request logs follow it', () => {
    assert.doesNotMatch(README, /prints one line/);
    assert.match(README, /every request logs its own/);
  });

  it('names every bench script of package.json in its layout', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const start = README.indexOf('\n## Layout\n');
    assert.ok(start > 0, 'the README has a layout section');
    const end = README.indexOf('\n## ', start + 1);
    const layout = README.slice(start, end === -1 ? undefined : end);
    const benches = Object.keys(scripts).filter((name) => name === 'bench' || name.startsWith('bench:'));
    assert.ok(benches.includes('bench:scale'));
    assert.deepEqual(
      benches.filter((name) => !layout.includes(`\`${name === 'bench' ? 'npm run bench' : name}\``)),
      [],
    );
  });
});
