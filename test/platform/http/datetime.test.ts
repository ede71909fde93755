// Expected values produced by Pydantic 2.13 (`TypeAdapter(datetime)`), naive results read as UTC.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalUuid, dateTimeError, parseDateTime } from '../../../src/platform/http/datetime.ts';

const ACCEPTED: [input: string, utc: string][] = [
  ['2024-01-01', '2024-01-01T00:00:00.000Z'],
  ['2024-01-01T10:00', '2024-01-01T10:00:00.000Z'],
  ['2024-01-01T10:00:00', '2024-01-01T10:00:00.000Z'],
  ['2024-01-01 10:00:00+02:00', '2024-01-01T08:00:00.000Z'],
  ['2024-01-01t10:00:00Z', '2024-01-01T10:00:00.000Z'],
  ['2024-01-01_10:00:00', '2024-01-01T10:00:00.000Z'],
  ['2024-01-01T10:00:00.1234567Z', '2024-01-01T10:00:00.123Z'],
  ['2024-01-01T10:00:00+0530', '2024-01-01T04:30:00.000Z'],
  ['2024-01-01T10:00:00-00:00', '2024-01-01T10:00:00.000Z'],
  ['2024-02-29T23:59:59.999+05:30', '2024-02-29T18:29:59.999Z'],
  ['1700000000', '2023-11-14T22:13:20.000Z'],
  ['1700000000000', '2023-11-14T22:13:20.000Z'],
  ['1700000000.5', '2023-11-14T22:13:20.500Z'],
  ['-5', '1969-12-31T23:59:55.000Z'],
];

const REJECTED: [input: string, error: string][] = [
  ['2024-13-01', 'month value is outside expected range of 1-12'],
  ['2024-01-32', 'day value is outside expected range'],
  ['abc', 'input is too short'],
  ['2024-01-01T25:00', 'unexpected extra characters at the end of the input'],
  ['2024-1-1', 'input is too short'],
  ['2024-01-01T10', 'unexpected extra characters at the end of the input'],
  ['2024-01-01T10:00:00+2', 'unexpected extra characters at the end of the input'],
  [' 2024-01-01', 'invalid character in year'],
  ['2023-02-29', 'day value is outside expected range'],
  ['2024x01-01', 'invalid date separator, expected `-`'],
  ['2024-0a-01', 'invalid character in month'],
  ['2024-01x01', 'invalid date separator, expected `-`'],
  ['2024-01-0a', 'invalid character in day'],
  ['20a4-01-01', 'invalid character in year'],
  ['2024-00-01', 'month value is outside expected range of 1-12'],
  ['2024-01-00', 'day value is outside expected range'],
  ['2024-01-01 ', 'unexpected extra characters at the end of the input'],
  ['T10:00:00', 'input is too short'],
  ['1e10', 'input is too short'],
  ['2024-01-01T24:00:00', 'unexpected extra characters at the end of the input'],
  // Python's datetime (and PostgreSQL) begin at year 1.
  ['0000-01-01T00:00:00Z', 'year 0 is out of range'],
];

describe('datetime inputs, as Pydantic reads them', () => {
  for (const [input, utc] of ACCEPTED) {
    it(`accepts ${JSON.stringify(input)} as ${utc}`, () => {
      assert.equal(parseDateTime(input)?.toISOString(), utc);
    });
  }
  for (const [input, error] of REJECTED) {
    it(`rejects ${JSON.stringify(input)}: ${error}`, () => {
      assert.equal(parseDateTime(input), undefined);
      assert.equal(dateTimeError(input), error);
    });
  }
});

it('rejects an offset that moves the instant before year 1', () => {
  assert.equal(parseDateTime('0001-01-01T00:00:00+01:00'), undefined);
  assert.equal(parseDateTime('0001-01-01T00:00:00Z')?.toISOString(), '0001-01-01T00:00:00.000Z');
});

describe('uuid inputs', () => {
  it('accepts the hyphenated, simple and urn forms in any case, answering lower-case hyphenated', () => {
    const canonical = 'c0a80121-7ac0-11d1-898c-00c04fd430c8';
    for (const input of [
      canonical,
      canonical.toUpperCase(),
      'c0a801217ac011d1898c00c04fd430c8',
      `urn:uuid:${canonical}`,
    ]) {
      assert.equal(canonicalUuid(input), canonical, input);
    }
  });

  it('rejects anything else', () => {
    for (const input of ['', 'nope', 'c0a80121-7ac0-11d1-898c-00c04fd430c', 'c0a80121-7ac0-11d1-898c-00c04fd430c8x']) {
      assert.equal(canonicalUuid(input), undefined, input);
    }
  });
});
