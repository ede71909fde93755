#!/usr/bin/env node
// Runs every test file (or those under the paths given) with Node's test runner, each file in its
// own process, TypeScript through tsx, and the network guard loaded first.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const targets = process.argv.slice(2);

function collect(entry, files) {
  const stat = statSync(entry);
  if (stat.isDirectory()) {
    for (const name of readdirSync(entry).sort()) {
      if (name === 'node_modules' || name === 'fakes' || name === 'helpers') continue;
      collect(path.join(entry, name), files);
    }
  } else if (entry.endsWith('.test.ts')) {
    files.push(entry);
  }
  return files;
}

const files = (targets.length > 0 ? targets : ['test', 'src'])
  .map((t) => path.resolve(root, t))
  .flatMap((t) => collect(t, []));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    path.join(root, 'test/helpers/no-network.ts'),
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit', cwd: root, env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' } },
);
process.exit(result.status ?? 1);
