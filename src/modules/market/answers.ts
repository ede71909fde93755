// Small helpers the services share to build answers: provenance and age, numbers, pair rows.
import { invalidField } from '../../platform/http/errors.ts';
import { MAX_SYMBOLS, splitSymbolList } from './symbols.domain.ts';
import type { PairTicker } from './market.types.ts';

interface Freshness {
  source: string;
  stale: boolean;
  age_seconds: number;
  updated_at: string;
}

interface Dated {
  fetchedAt: number;
  stale: boolean;
}

/** Provenance and age (whole seconds, as HTTP's Age) of an answer built from these pieces: the oldest one counts. */
export function freshness(source: string, now: number, ...pieces: Dated[]): Freshness {
  let oldest = Infinity;
  let stale = false;
  for (const piece of pieces) {
    if (piece.fetchedAt < oldest) oldest = piece.fetchedAt;
    stale ||= piece.stale;
  }
  return { source, stale, age_seconds: Math.max(0, Math.floor((now - oldest) / 1000)), updated_at: isoOnce(oldest) };
}

let lastIso = { ms: NaN, text: '' };
/** Most answers in a row share their fetch time; format it once. */
function isoOnce(ms: number): string {
  if (lastIso.ms !== ms) lastIso = { ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}

type Derive = <R>(key: string, inputs: readonly unknown[], compute: () => R) => R;

/**
 * `{...body, ...fresh}`, and the very same object for as long as neither changes (the age moves once
 * a second), so that routes serialise each distinct answer once.
 */
export function stamped<B extends object>(derive: Derive, key: string, body: B, fresh: Freshness): B & Freshness {
  return derive(`answer:${key}`, [body, fresh.source, fresh.stale, fresh.age_seconds, fresh.updated_at], () => ({
    ...body,
    ...fresh,
  }));
}

/** `a+b` of the distinct source names, or one name. */
export function joinSources(...names: string[]): string {
  return [...new Set(names)].join('+');
}

/** The venue's decimal string as a JSON number. */
export const num = (value: string | number): number => Number(value);

export const isoMs = (ms: number): string => new Date(ms).toISOString();

/** A comma-separated symbols parameter, or a Pydantic-shaped 422 when it names none or too many. */
export function symbolList(raw: string, loc: (string | number)[]): string[] {
  const names = [...new Set(splitSymbolList(raw).map((s) => s.toUpperCase()))];
  if (names.length === 0) throw invalidField(loc, 'at least one symbol is required', raw);
  if (names.length > MAX_SYMBOLS) throw invalidField(loc, `at most ${MAX_SYMBOLS} symbols are allowed`, raw);
  return names;
}

export function marketPair(p: PairTicker) {
  return {
    symbol: p.symbol,
    base: p.base,
    quote: p.quote,
    price: num(p.lastPrice),
    change_percent: num(p.priceChangePercent),
    volume: num(p.volume),
    quote_volume: num(p.quoteVolume),
    trades: p.count,
  };
}
