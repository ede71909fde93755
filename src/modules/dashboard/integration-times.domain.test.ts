import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dateOf, later, latestError } from './integration-times.domain.ts';

describe('integration times', () => {
  const t = (iso: string) => new Date(iso);

  it('reads ISO strings and epoch ms as the same instant, null as null', () => {
    const at = '2031-03-01T12:00:00.000Z';
    assert.equal(dateOf(at)!.getTime(), dateOf(Date.parse(at))!.getTime());
    assert.equal(dateOf(null), null);
  });

  it('takes the later time, either when the other is null, the first on a tie', () => {
    const early = t('2031-03-01T09:00:00.000Z');
    const late = t('2031-03-01T10:00:00.000Z');
    assert.equal(later(early, late), late);
    assert.equal(later(late, early), late);
    assert.equal(later(null, early), early);
    assert.equal(later(early, null), early);
    assert.equal(later(null, null), null);
    const same = t('2031-03-01T09:00:00.000Z');
    assert.equal(later(early, same), early);
  });

  it('compares instants, not text: a year past 9999 is later than any four-digit one', () => {
    const far = new Date(Date.UTC(10000, 0, 1));
    assert.equal(later(far, t('9999-12-31T00:00:00.000Z')), far);
  });

  it('answers the most recent failure with its cleaned text, the first given on a tie', () => {
    const answer = latestError(
      { at: t('2031-03-01T09:00:00.000Z'), error: 'old' },
      { at: null, error: 'never happened' },
      { at: t('2031-03-01T11:00:00.000Z'), error: 'GET https://api.example.com/v1/x?key=1 failed' },
      { at: t('2031-03-01T11:00:00.000Z'), error: 'same time, given later' },
    );
    assert.deepEqual(answer, {
      lastErrorAt: t('2031-03-01T11:00:00.000Z'),
      lastError: 'GET https://api.example.com failed',
    });
    assert.deepEqual(latestError(), { lastErrorAt: null, lastError: null });
  });
});
