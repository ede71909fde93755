// Small helpers the services share to build answers: provenance and age, source names, symbol lists.
import { invalidField } from '../../platform/http/errors.ts';
import { MAX_SYMBOLS, splitSymbolList } from './symbols.domain.ts';

/** Provenance and age of an answer's data. */
export interface Freshness {
  source: string;
  /** Served from cache after the upstream failed. */
  stale: boolean;
  /** Whole seconds, as HTTP's Age. */
  ageSeconds: number;
  /** When the (oldest) data was fetched, ms since the epoch. */
  updatedAt: number;
}

/** An answer's data with its provenance and age. */
export interface MarketAnswer<T> {
  data: T;
  freshness: Freshness;
}

interface Dated {
  fetchedAt: number;
  stale: boolean;
}

/** Provenance and age of an answer built from these pieces: the oldest one counts. */
export function freshness(source: string, now: number, ...pieces: Dated[]): Freshness {
  let oldest = Infinity;
  let stale = false;
  for (const piece of pieces) {
    if (piece.fetchedAt < oldest) oldest = piece.fetchedAt;
    stale ||= piece.stale;
  }
  return { source, stale, ageSeconds: Math.max(0, Math.floor((now - oldest) / 1000)), updatedAt: oldest };
}

type Derive = <R>(key: string, inputs: readonly unknown[], compute: () => R) => R;

/**
 * `{ data, freshness }`, and the very same object for as long as neither changes (the age moves once
 * a second), so that routes map and serialise each distinct answer once.
 */
export function stamped<T>(derive: Derive, key: string, data: T, fresh: Freshness): MarketAnswer<T> {
  return derive(`answer:${key}`, [data, fresh.source, fresh.stale, fresh.ageSeconds, fresh.updatedAt], () => ({
    data,
    freshness: fresh,
  }));
}

/** `a+b` of the distinct source names, or one name. */
export function joinSources(...names: string[]): string {
  return [...new Set(names)].join('+');
}

/** A comma-separated symbols parameter, or a Pydantic-shaped 422 when it names none or too many. */
export function symbolList(raw: string, loc: (string | number)[]): string[] {
  const names = [...new Set(splitSymbolList(raw).map((s) => s.toUpperCase()))];
  if (names.length === 0) throw invalidField(loc, 'at least one symbol is required', raw);
  if (names.length > MAX_SYMBOLS) throw invalidField(loc, `at most ${MAX_SYMBOLS} symbols are allowed`, raw);
  return names;
}
