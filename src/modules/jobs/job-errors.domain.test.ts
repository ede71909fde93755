import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError, unavailable } from '../../platform/http/errors.ts';
import { safeJobError } from './job-errors.domain.ts';

describe('safe job errors', () => {
  it('keeps our own sentences and hides anything else', () => {
    assert.equal(safeJobError(unavailable('Binance is unavailable')), 'Binance is unavailable');
    assert.equal(
      safeJobError(new Error('duplicate key value violates unique constraint "users_email_key"')),
      'unexpected error; the cause is in the service log',
    );
    const wrapped = new Error('Failed query: select secret from x', {
      cause: Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }),
    });
    assert.equal(safeJobError(wrapped), 'a dependency is unreachable (ECONNREFUSED)');
    assert.equal(
      safeJobError(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
      'the database is unavailable',
    );
    assert.equal(safeJobError(new AppError('validation', [])), 'unexpected error; the cause is in the service log');
    assert.equal(safeJobError('a string'), 'unexpected error; the cause is in the service log');
  });
});
