// Which refused deliveries reach the log. Anyone can send refusals as fast as they like, so each
// provider and reason is logged once at first, then only as a count per interval (decision 060).

/** `busy`: unverified bodies already held all the room they may (decision 961). */
export type RefusalReason = 'unconfigured' | 'missing' | 'invalid' | 'stale' | 'busy';

export type RefusalLine =
  | { kind: 'first'; provider: string; reason: RefusalReason }
  | { kind: 'count'; provider: string; reason: RefusalReason; count: number; since: Date };

interface Interval {
  provider: string;
  reason: RefusalReason;
  startedAt: number;
  more: number;
}

/** The refusals of one process; time comes in with each call. */
export function createRefusalTally(intervalMs: number) {
  const open = new Map<string, Interval>();

  function close(interval: Interval, lines: RefusalLine[]): void {
    open.delete(`${interval.provider}:${interval.reason}`);
    const { provider, reason, more, startedAt } = interval;
    if (more > 0) lines.push({ kind: 'count', provider, reason, count: more, since: new Date(startedAt) });
  }

  return {
    /** One refusal at `now`: the lines to log for it (none while its interval is counting). */
    note(provider: string, reason: RefusalReason, now: Date): RefusalLine[] {
      const lines: RefusalLine[] = [];
      const key = `${provider}:${reason}`;
      const current = open.get(key);
      if (current && now.getTime() - current.startedAt < intervalMs) {
        current.more++;
        return lines;
      }
      if (current) close(current, lines);
      open.set(key, { provider, reason, startedAt: now.getTime(), more: 0 });
      lines.push({ kind: 'first', provider, reason });
      return lines;
    },

    /** The counts of every interval that has ended by `now`; all of them when `now` is omitted (shutdown). */
    due(now?: Date): RefusalLine[] {
      const lines: RefusalLine[] = [];
      for (const interval of [...open.values()]) {
        if (!now || now.getTime() - interval.startedAt >= intervalMs) close(interval, lines);
      }
      return lines;
    },
  };
}
