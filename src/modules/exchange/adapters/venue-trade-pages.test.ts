// The walk that finds a market's oldest trades on venues that page newest first: against venues kept in
// memory that page as OKX (newest first, a cursor to older pages), Bybit (the same within 7 days a call)
// and Kraken (the window's oldest page first), every answer must be exactly the oldest trades not yet
// stored, and a backlog late in a long window must be found without walking its newest pages again.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Trade } from 'ccxt';
import { seeded } from '../../../../test/helpers/seeded.ts';
import { walkOldest, type Pager } from './venue-trade-pages.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-12-01T00:00:00Z');

const trade = (id: string, timestamp: number) => ({ id, timestamp }) as Trade;

/** A venue holding `trades`, answering pages of `size`, and counting the calls. */
function venue(trades: Trade[], shape: 'newest-first' | 'oldest-first' | 'week-span', size = 100) {
  // Newest first, ties by id, as the venues order them.
  const sorted = [...trades].sort((a, b) => b.timestamp! - a.timestamp! || b.id!.localeCompare(a.id!));
  const stats = { calls: 0 };
  const pager: Pager = {
    oldestFirst: shape === 'oldest-first',
    maxSpanMs: shape === 'week-span' ? 7 * DAY : undefined,
    async fetch(from, to, cursor) {
      stats.calls += 1;
      if (shape === 'week-span') assert.ok(to - from < 7 * DAY, 'a window of at most 7 days');
      const inside = sorted.filter((t) => t.timestamp! >= from && t.timestamp! <= to);
      // Kraken: the first page asked is the window's oldest, then newer ones.
      const pages = shape === 'oldest-first' ? inside.reverse() : inside;
      const at = Number(cursor ?? 0);
      return {
        trades: pages.slice(at, at + size),
        next: at + size < pages.length ? String(at + size) : undefined,
      };
    },
  };
  return { pager, stats };
}

/** What a walk must answer: the oldest `limit` trades at or after `since` that are not `known`, oldest first. */
function expected(trades: Trade[], since: number, limit: number, known: readonly string[]) {
  const skip = new Set(known);
  return trades
    .filter((t) => t.timestamp! >= since && t.timestamp! <= NOW && !skip.has(t.id!))
    .sort((a, b) => a.timestamp! - b.timestamp! || a.id!.localeCompare(b.id!))
    .slice(0, limit)
    .map((t) => t.id);
}

describe('the oldest trades of a window, on venues that page newest first', () => {
  it('finds a backlog late in a year-long window in one call per halving, not a new walk of its newest pages', async () => {
    // 650 fills in the last 12 hours, asked from a year back: the first walk sees the newest 300 and
    // is cut; every later window that would hold those 300 is halved before it is asked.
    const backlog = Array.from({ length: 650 }, (_, i) =>
      trade(`f${String(i).padStart(4, '0')}`, NOW - 12 * HOUR + i * 66_000),
    );
    const since = NOW - 365 * DAY;
    const { pager, stats } = venue(backlog, 'newest-first');
    const first = await walkOldest('okx', pager, since, 100, NOW);
    assert.deepEqual(
      first.map((t) => t.id),
      expected(backlog, since, 100, []),
    );
    // 3 pages of the whole year, 10 empty halves down to the fills' 12 hours, then one window's pages.
    // Walking the newest 300 again after each empty half took 44 calls.
    assert.ok(stats.calls <= 16, `${stats.calls} calls`);

    // The syncs after it continue from the newest stored trade, leaving out those stored at its instant.
    const stored = first.map((t) => t.id!);
    let from = first.at(-1)!.timestamp!;
    for (let round = 0; stored.length < backlog.length; round += 1) {
      assert.ok(round < 10, 'the backlog is walked in a few syncs');
      const known = stored.slice(-5);
      const page = await walkOldest('okx', pager, from, 100, NOW, known);
      assert.deepEqual(
        page.map((t) => t.id),
        expected(backlog, from, 100, known),
      );
      stored.push(...page.map((t) => t.id!));
      from = page.at(-1)!.timestamp!;
    }
    assert.deepEqual([...stored].sort(), backlog.map((t) => t.id).sort(), 'each fill once, none skipped');
  });

  for (const shape of ['newest-first', 'week-span', 'oldest-first'] as const) {
    it(`answers exactly the oldest trades not yet stored, however they cluster (${shape})`, async () => {
      const random = seeded(shape.length * 7919);
      for (let round = 0; round < 200; round += 1) {
        // Clusters of fills (some many in one millisecond) at random places of the last 60 days.
        const trades: Trade[] = [];
        for (let cluster = Math.floor(random() * 6); cluster >= 0; cluster -= 1) {
          const at = NOW - Math.floor(random() * 60 * DAY);
          const spread = [0, 1, 50, HOUR, 5 * DAY][Math.floor(random() * 5)]!;
          const count = Math.floor(random() * 700);
          for (let i = 0; i < count; i += 1)
            trades.push(trade(`${round}-${cluster}-${i}`, Math.min(NOW, at + Math.floor(random() * (spread + 1)))));
        }
        const since = NOW - Math.floor(random() * 90 * DAY);
        const limit = [1, 50, 100, 500, 1000][Math.floor(random() * 5)]!;
        const inWindow = trades.filter((t) => t.timestamp! >= since);
        const known = inWindow.filter(() => random() < 0.05).map((t) => t.id!);
        const { pager, stats } = venue(trades, shape);
        const answer = await walkOldest('okx', pager, since, limit, NOW, known);
        assert.deepEqual(
          answer.map((t) => t.id),
          expected(trades, since, limit, known),
          `round ${round}: since ${since}, limit ${limit}, ${trades.length} trades`,
        );
        // Half of what one sync may make (80): a dense span seen once is not walked again.
        assert.ok(stats.calls <= 40, `round ${round}: ${stats.calls} calls`);
      }
    });
  }
});
