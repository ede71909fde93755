import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cursorAfter, firstWindow, nextStart, PAGE_LIMIT, SETTLE_MS, WINDOW_MS } from './transfer-cursor.domain.ts';

const DAY = 86_400_000;

describe('transfer sync windows', () => {
  it('reads at most 90 days per call, ending at now', () => {
    assert.equal(WINDOW_MS, 90 * DAY);
    assert.deepEqual(firstWindow(0, 200 * DAY), { since: 0, until: 90 * DAY });
    assert.deepEqual(firstWindow(150 * DAY, 200 * DAY), { since: 150 * DAY, until: 200 * DAY });
    assert.equal(firstWindow(200 * DAY, 200 * DAY), null);
  });

  it('continues after a full page from just past its newest record, else from the window end', () => {
    const window = { since: 0, until: 90 * DAY };
    assert.equal(nextStart(window, [{ timestamp: 5 }]), 90 * DAY);
    const full = Array.from({ length: PAGE_LIMIT }, (_, i) => ({ timestamp: 10 * DAY + i }));
    assert.equal(nextStart(window, full), 10 * DAY + PAGE_LIMIT);
  });

  it('keeps the cursor a day behind now and never moves it back', () => {
    const now = 100 * DAY;
    assert.equal(SETTLE_MS, DAY);
    assert.equal(cursorAfter(now, now, null), 99 * DAY);
    assert.equal(cursorAfter(50 * DAY, now, null), 50 * DAY);
    assert.equal(
      cursorAfter(10 * DAY, now, 60 * DAY),
      60 * DAY,
      'a sync asked from an earlier `since` does not rewind it',
    );
  });
});
