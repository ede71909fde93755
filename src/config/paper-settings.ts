// PAPER_START_BALANCES: what a paper account holds when it is opened or reset (docs/decisions/217).
import type { EnvReader } from './env-reader.ts';

/** A JSON object of asset codes (A-Z, 0-9) → non-negative decimal strings; the default `{"USDT": "10000"}`. */
export function paperBalances(env: EnvReader, name: string): Readonly<Record<string, string>> {
  const fallback = { USDT: '10000' };
  const raw = env.string(name);
  if (raw === undefined) return fallback;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const entries = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : null;
  const valid =
    entries !== null &&
    entries.length > 0 &&
    entries.every(
      ([asset, amount]) =>
        /^[A-Z0-9]{1,20}$/.test(asset) && typeof amount === 'string' && /^\d{1,20}(\.\d{1,18})?$/.test(amount),
    );
  if (!valid) {
    env.problems.push(
      `${name} must be a JSON object of asset codes to decimal strings, e.g. {"USDT": "10000"} (got ${JSON.stringify(raw)})`,
    );
    return fallback;
  }
  return Object.fromEntries(entries as [string, string][]);
}
