// docs/decisions/README.md is the index of the decisions: every record has its row, every status
// names decisions that exist, and what the records say of each other (amends, amended by,
// superseded by) is in the rows, so a reader of the index learns which records still hold as written.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const DECISIONS = path.resolve(import.meta.dirname, '../../docs/decisions');

interface Row {
  number: string;
  file: string;
  status: string;
}

// Numbered 001–999, then 1000 onwards.
const NUMBERS = /\b\d{3,4}\b/g;
const NUMBER = String.raw`\d{3,4}`;

function rows(): Row[] {
  const index = readFileSync(path.join(DECISIONS, 'README.md'), 'utf8');
  return [...index.matchAll(new RegExp(String.raw`^\| \[(${NUMBER})\]\(([^)]+)\) \| .+ \| ([^|]+) \|$`, 'gm'))].map(
    ([, number, file, status]) => ({
      number: number!,
      file: file!,
      status: status!.trim(),
    }),
  );
}

const records = readdirSync(DECISIONS)
  .filter((name) => new RegExp(String.raw`^${NUMBER}-.+\.md$`).test(name))
  .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
const text = (file: string) => readFileSync(path.join(DECISIONS, file), 'utf8');

describe('the index of decisions', () => {
  const index = rows();
  const byNumber = new Map(index.map((row) => [row.number, row]));

  it('has one row per decision record, in number order, each linking its file', () => {
    assert.deepEqual(
      index.map((row) => row.file),
      records,
    );
    for (const row of index) assert.ok(row.file.startsWith(`${row.number}-`), row.file);
  });

  it('gives every decision a status, naming only decisions that exist', () => {
    for (const row of index) {
      assert.match(
        row.status,
        new RegExp(String.raw`^(accepted|amended by ${NUMBER}|superseded by ${NUMBER})`),
        `${row.number}: ${row.status}`,
      );
      for (const named of row.status.match(NUMBERS) ?? [])
        assert.ok(byNumber.has(named), `${row.number} names ${named}, which is not a decision`);
    }
  });

  it('says in the rows what the records say of each other', () => {
    const missing: string[] = [];
    for (const file of records) {
      const number = file.slice(0, file.indexOf('-'));
      const body = text(file);
      // "Amended by 125 and 126", "superseded by decision 197": the later ones are named in this row.
      for (const [, , named] of body.matchAll(
        new RegExp(String.raw`\b(amended|superseded) by (?:decisions? )?(${NUMBER}(?:(?:, | and )${NUMBER})*)`, 'gi'),
      ))
        for (const later of named!.match(NUMBERS) ?? [])
          if (!byNumber.get(number)?.status.includes(later)) missing.push(`${number}: ${later}`);
      // "Amends decisions 070 and 101." in a record's first lines: the earlier ones' rows name this one.
      const amends = new RegExp(String.raw`^Amends decisions? (${NUMBER}(?:(?:, | and )${NUMBER})*)`, 'm').exec(
        body.split('\n').slice(0, 4).join('\n'),
      );
      for (const earlier of amends?.[1]?.match(NUMBERS) ?? [])
        if (!byNumber.get(earlier)?.status.includes(number)) missing.push(`${earlier}: ${number}`);
    }
    assert.deepEqual(missing, []);
  });

  it('is checked against records that do refer to each other', () => {
    assert.ok(index.some((row) => row.status.startsWith('superseded by')));
    assert.ok(index.filter((row) => row.status.startsWith('amended by')).length > 5);
  });
});
