import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { promotionVerdict, transitionBudget } from './strategies.domain.ts';

const NOW = new Date('2025-06-01T00:00:00Z');
const daysAgo = (n: number) => new Date(NOW.getTime() - n * 86_400_000);
const good = { paper_trades: 30, win_rate: 0.5, return_pct: 0.01, max_drawdown_pct: 10 };

describe('promotion rules', () => {
  it('promotes a strategy that meets every rule exactly at its bound', () => {
    assert.deepEqual(promotionVerdict({ paperStartedAt: daysAgo(14), metrics: good }, NOW), {
      eligible: true,
      reasons: [],
    });
  });

  it('lists every rule that fails', () => {
    const verdict = promotionVerdict(
      {
        paperStartedAt: daysAgo(13.5),
        metrics: { paper_trades: 29, win_rate: 0.49, return_pct: 0, max_drawdown_pct: 10.5 },
      },
      NOW,
    );
    assert.equal(verdict.eligible, false);
    assert.deepEqual(verdict.reasons, [
      'in paper trading for 13 of 14 days',
      '29 of 30 paper trades',
      'return 0 % is not above 0 %',
      'max drawdown 10.5 % is above 10 %',
      'win rate 0.49 is below 0.5',
    ]);
  });

  it('holds a strategy whose figures are missing or not numbers', () => {
    const verdict = promotionVerdict({ paperStartedAt: null, metrics: { paper_trades: Number.NaN } }, NOW);
    assert.deepEqual(verdict.reasons, [
      'paper trading start is unknown',
      'paper_trades is missing',
      'return_pct is missing',
      'max_drawdown_pct is missing',
      'win_rate is missing',
    ]);
  });

  it('reads a drawdown given as a negative number by its size', () => {
    assert.equal(
      promotionVerdict({ paperStartedAt: daysAgo(20), metrics: { ...good, max_drawdown_pct: -12 } }, NOW).eligible,
      false,
    );
    assert.equal(
      promotionVerdict({ paperStartedAt: daysAgo(20), metrics: { ...good, max_drawdown_pct: -8 } }, NOW).eligible,
      true,
    );
  });

  it('allows the hourly limit minus the transitions already made, never below zero', () => {
    assert.equal(transitionBudget(4, 0), 4);
    assert.equal(transitionBudget(4, 3), 1);
    assert.equal(transitionBudget(4, 6), 0);
  });
});
