import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskApiKey } from './credentials.domain.ts';

describe('maskApiKey', () => {
  it('shows the first and last four characters of a normal key', () => {
    assert.equal(maskApiKey('vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIPy6utIco14y7Ju91duEh8A'), 'vmPU****Eh8A');
  });

  it('never shows more than a third of a short key', () => {
    assert.equal(maskApiKey('12345678'), '1****8');
    assert.equal(maskApiKey('123456789012'), '12****12');
    assert.equal(maskApiKey('12345'), '****');
  });
});
