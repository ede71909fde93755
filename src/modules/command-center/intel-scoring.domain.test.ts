import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { directionSign, horizonOf, isCorrect, precisionOf, summarize } from './intel-scoring.domain.ts';

describe('intel scoring', () => {
  it('gives bullish, long and up a positive sign and bearish, short and down a negative one', () => {
    for (const d of ['bullish', 'long', 'up']) assert.equal(directionSign(d), 1);
    for (const d of ['bearish', 'short', 'down']) assert.equal(directionSign(d), -1);
    assert.equal(directionSign('sideways'), 0);
  });

  it('counts a call correct only when the move has its sign; a flat or missing outcome is never correct', () => {
    assert.equal(isCorrect('bullish', 2.5), true);
    assert.equal(isCorrect('bullish', -0.1), false);
    assert.equal(isCorrect('short', -3), true);
    assert.equal(isCorrect('down', 1), false);
    assert.equal(isCorrect('up', 0), false);
    assert.equal(isCorrect('up', null), false);
    assert.equal(isCorrect('up', Number.NaN), false);
  });

  it('judges an event at expires_at, or 24 hours after detection without one', () => {
    const detectedAt = new Date('2025-03-01T10:00:00Z');
    assert.equal(horizonOf({ detectedAt, expiresAt: null }).toISOString(), '2025-03-02T10:00:00.000Z');
    const expiresAt = new Date('2025-03-01T12:00:00Z');
    assert.equal(horizonOf({ detectedAt, expiresAt }), expiresAt);
  });

  it('never divides by zero', () => {
    assert.equal(precisionOf(0, 0), 0);
    assert.equal(precisionOf(3, 4), 0.75);
  });

  it('folds grouped counts into totals, scored, correct and precision per source', () => {
    const summary = summarize([
      { source: 'news', direction: 'bullish', outcomeSign: 1, count: 3 },
      { source: 'news', direction: 'bullish', outcomeSign: -1, count: 1 },
      { source: 'news', direction: 'short', outcomeSign: -1, count: 2 },
      { source: 'news', direction: 'short', outcomeSign: 0, count: 2 },
      { source: 'news', direction: 'up', outcomeSign: null, count: 5 },
      { source: 'onchain', direction: 'down', outcomeSign: null, count: 2 },
    ]);
    assert.deepEqual(summary.news, { total: 13, scored: 8, correct: 5, precision: 5 / 8 });
    assert.deepEqual(summary.onchain, { total: 2, scored: 0, correct: 0, precision: 0 });
  });
});
