// Symbols arrive as BTCUSDT, BTC/USDT or BTC-USDT in any case; answers use the venue form. The base
// and quote come from the venue's symbol list, never from guessing where BTCUSDT splits.
import type { SymbolInfo } from './market.types.ts';

export interface SymbolIndex {
  bySymbol: ReadonlyMap<string, SymbolInfo>;
  /** BASE/QUOTE → symbol. */
  byPair: ReadonlyMap<string, SymbolInfo>;
  /** Listed symbols whose status is TRADING, in venue order. */
  trading: readonly SymbolInfo[];
}

/** Most symbols a list parameter may name. */
export const MAX_SYMBOLS = 100;

export function indexSymbols(list: readonly SymbolInfo[]): SymbolIndex {
  const bySymbol = new Map<string, SymbolInfo>();
  const byPair = new Map<string, SymbolInfo>();
  for (const info of list) {
    bySymbol.set(info.symbol, info);
    byPair.set(`${info.base}/${info.quote}`, info);
  }
  return { bySymbol, byPair, trading: list.filter((s) => s.status === 'TRADING') };
}

/** The listed symbol an input names, or undefined. */
export function resolveSymbol(index: SymbolIndex, input: string): SymbolInfo | undefined {
  const text = input.trim().toUpperCase();
  const pair = /^([A-Z0-9]+)[/-]([A-Z0-9]+)$/.exec(text);
  if (pair) return index.byPair.get(`${pair[1]}/${pair[2]}`);
  return /^[A-Z0-9]+$/.test(text) ? index.bySymbol.get(text) : undefined;
}

/** A comma-separated list: trimmed, empty items dropped, in the caller's order. */
export function splitSymbolList(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}
