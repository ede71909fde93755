// The offsets and messages below were produced by CPython 3.11's json.loads, which is what FastAPI
// reports in `json_invalid`; the scanner must agree with it on every one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { locateJsonError } from '../../../src/platform/http/json-errors.ts';

const PYTHON: [text: string, position: number, message: string][] = [
  ['{"a":}', 5, 'Expecting value'],
  ['{"a" 1}', 5, "Expecting ':' delimiter"],
  ['{a:1}', 1, 'Expecting property name enclosed in double quotes'],
  ['[1,2', 4, "Expecting ',' delimiter"],
  ['{"a":1,}', 7, 'Expecting property name enclosed in double quotes'],
  ['', 0, 'Expecting value'],
  [' ', 1, 'Expecting value'],
  ['x', 0, 'Expecting value'],
  ['{"a":"b', 5, 'Unterminated string starting at'],
  ['{"a":1}x', 7, 'Extra data'],
  ['[1 2]', 3, "Expecting ',' delimiter"],
  ['{"a":"\\x"}', 6, 'Invalid \\escape'],
  ['{"a":"\\u12"}', 7, 'Invalid \\uXXXX escape'],
  ['{"a":"b\u0001"}', 7, 'Invalid control character at'],
  ['[1,]', 3, 'Expecting value'],
  ['{"a":1 "b":2}', 7, "Expecting ',' delimiter"],
  ['-', 0, 'Expecting value'],
  ['01', 1, 'Extra data'],
  ['1.', 1, 'Extra data'],
  ['tru', 0, 'Expecting value'],
  ['{"é":x}', 5, 'Expecting value'],
  ['{"😀":x}', 5, 'Expecting value'],
  ['  {', 3, 'Expecting property name enclosed in double quotes'],
  ['[', 1, 'Expecting value'],
  ['{"a"', 4, "Expecting ':' delimiter"],
  ['{"a":', 5, 'Expecting value'],
  ['[1e]', 2, "Expecting ',' delimiter"],
  ['{,}', 1, 'Expecting property name enclosed in double quotes'],
  ['{"title": }', 10, 'Expecting value'],
  ['{"a":[1,{"b":nul}]}', 13, 'Expecting value'],
];

describe('locateJsonError', () => {
  for (const [text, position, message] of PYTHON) {
    it(`${JSON.stringify(text)} fails at ${position} with "${message}", as Python says`, () => {
      assert.deepEqual(locateJsonError(text), { position, message });
    });
  }

  it('finds nothing wrong in valid JSON, nested and with escapes', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e3, true, false, null, {"b": "\\u00e9\\n\\"😀"}]} ', '"x"', '0']) {
      assert.equal(locateJsonError(text), undefined, text);
    }
  });

  it('counts offsets in code points, as Python does, not in UTF-16 units', () => {
    // The emoji is two UTF-16 units but one character for Python.
    assert.equal(locateJsonError('["😀😀", x]')?.position, 7);
  });
});
