import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MASK, redactKeyInputs, redactKeyInputsInPayload } from './redact-key-input.ts';

describe('422 key redaction', () => {
  it('masks the input of an issue on api_key and a whole body that contains the key', () => {
    const issues = redactKeyInputs([
      { type: 'string_pattern_mismatch', loc: ['body', 'api_key'], msg: 'x', input: 'sk-secret-value\n' },
      { type: 'missing', loc: ['body', 'provider'], msg: 'Field required', input: { api_key: 'sk-secret-value', notes: 'n' } },
      { type: 'enum', loc: ['body', 'provider'], msg: 'x', input: 'cohere' },
    ]);
    assert.equal(issues[0]!.input, MASK);
    assert.deepEqual(issues[1]!.input, { api_key: MASK, notes: 'n' });
    assert.equal(issues[2]!.input, 'cohere');
  });

  it('rewrites only 422 JSON payloads', () => {
    const body = JSON.stringify({ detail: [{ type: 'string_too_short', loc: ['body', 'api_key'], msg: 'm', input: 'sk-4f2a' }] });
    assert.ok(!String(redactKeyInputsInPayload(422, body)).includes('sk-4f2a'));
    assert.equal(redactKeyInputsInPayload(200, body), body);
    assert.equal(redactKeyInputsInPayload(422, 'not json'), 'not json');
    assert.equal(redactKeyInputsInPayload(422, '{"detail":"words"}'), '{"detail":"words"}');
  });
});
