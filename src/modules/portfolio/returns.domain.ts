// Returns over a window, pure: the amounts held at past instants, time-weighted return and XIRR
// (docs/decisions/154).
import { D, type Dec, type LedgerEvent } from './ledger.domain.ts';

const ZERO = new D(0);

/** How one event changes the amounts held per asset (all venues together). Transfers change only by their fee. */
function balanceDeltas(e: LedgerEvent): { asset: string; amount: Dec }[] {
  switch (e.kind) {
    case 'deposit':
      return [{ asset: e.asset, amount: e.amount }];
    case 'withdrawal':
      return [{ asset: e.asset, amount: e.amount.plus(e.fee).neg() }];
    case 'transfer':
      return e.fee.gt(0) ? [{ asset: e.asset, amount: e.fee.neg() }] : [];
    case 'trade': {
      const sign = e.side === 'buy' ? 1 : -1;
      const out = [
        { asset: e.base, amount: e.amount.times(sign) },
        { asset: e.quote, amount: e.total.times(-sign) },
      ];
      if (e.feeCurrency && e.fee.gt(0)) out.push({ asset: e.feeCurrency, amount: e.fee.neg() });
      return out;
    }
  }
}

/**
 * The amounts held at each of `times` (ascending), worked back from the amounts held now: what
 * every later event added is taken off again. Never below 0 (history older than the synced one).
 */
export function holdingsAt(
  now: ReadonlyMap<string, Dec>,
  events: readonly LedgerEvent[],
  times: readonly number[],
): Map<string, Dec>[] {
  const held = new Map(now);
  const sorted = [...events].sort((a, b) => b.at.getTime() - a.at.getTime());
  const out: Map<string, Dec>[] = new Array(times.length);
  let next = 0;
  for (let i = times.length - 1; i >= 0; i -= 1) {
    const t = times[i]!;
    while (next < sorted.length && sorted[next]!.at.getTime() > t) {
      for (const d of balanceDeltas(sorted[next]!)) held.set(d.asset, (held.get(d.asset) ?? ZERO).minus(d.amount));
      next += 1;
    }
    out[i] = new Map([...held].map(([asset, amount]) => [asset, amount.gt(0) ? amount : ZERO]));
  }
  return out;
}

/**
 * Time-weighted return over points: each period's return is (value at its end − the flows within
 * it) / value at its start − 1, flows counted at the period's end; periods starting at 0 are
 * skipped. The product of (1 + r) − 1; null when no period counts (docs/decisions/154).
 */
export function timeWeightedReturn(points: readonly { value: Dec; flow: Dec }[]): Dec | null {
  let growth = new D(1);
  let counted = 0;
  for (let i = 1; i < points.length; i += 1) {
    const start = points[i - 1]!.value;
    if (start.lte(0)) continue;
    growth = growth.times(points[i]!.value.minus(points[i]!.flow).div(start));
    counted += 1;
  }
  return counted === 0 ? null : growth.minus(1);
}

const YEAR_MS = 365 * 86_400_000;

/**
 * XIRR: the annual rate r with Σ amount_k / (1 + r)^((t_k − t_0) / 365 days) = 0, amounts from the
 * investor's side (paid in negative, value out positive). Newton from 10 %, then bisection over
 * (−0.999999, 1e15) when Newton does not settle; null without a sign change. Double precision: a rate
 * is a fraction to report, not money (docs/decisions/154).
 */
export function xirr(flows: readonly { at: number; amount: number }[]): number | null {
  if (flows.length < 2 || !flows.some((f) => f.amount > 0) || !flows.some((f) => f.amount < 0)) return null;
  const t0 = Math.min(...flows.map((f) => f.at));
  const years = flows.map((f) => ({ y: (f.at - t0) / YEAR_MS, a: f.amount }));
  const npv = (r: number) => years.reduce((s, f) => s + f.a / (1 + r) ** f.y, 0);
  const slope = (r: number) => years.reduce((s, f) => s - (f.y * f.a) / (1 + r) ** (f.y + 1), 0);
  let r = 0.1;
  for (let i = 0; i < 100; i += 1) {
    const v = npv(r);
    const d = slope(r);
    if (!Number.isFinite(v) || !Number.isFinite(d) || d === 0) break;
    const next = r - v / d;
    if (!Number.isFinite(next) || next <= -1) break;
    if (Math.abs(next - r) < 1e-12) return next;
    r = next;
  }
  let lo = -0.999999;
  let hi = 1e15;
  let flo = npv(lo);
  if (Number.isNaN(flo) || Math.sign(flo) === Math.sign(npv(hi))) return null;
  for (let i = 0; i < 300; i += 1) {
    const mid = (lo + hi) / 2;
    const fm = npv(mid);
    if (Math.sign(fm) === Math.sign(flo)) {
      lo = mid;
      flo = fm;
    } else hi = mid;
    if (hi - lo < 1e-12) break;
  }
  return (lo + hi) / 2;
}
