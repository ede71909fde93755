// The ledger of a user's trades and transfers in a report quote: replayed from every stored row, or
// kept between requests and brought up to date with what was stored since (docs/decisions/156).
import {
  applyEvents,
  dec,
  emptyLedger,
  type Dec,
  type Ledger,
  type LedgerEvent,
  type LedgerMarks,
} from './ledger.domain.ts';
import { forkLedger, restoreLedger, storeLedger } from './ledger-state.domain.ts';
import type { PortfolioSource, PortfolioTradeRow, PortfolioTransferRow } from './portfolio.deps.ts';
import type { LedgerStore } from './portfolio.repository.ts';
import type { Pricer } from './pricing.service.ts';
import { matchTransfers, type TransferRecord } from './transfer-matching.domain.ts';

/** At one instant: deposits first (money arrives before it is spent), then fills, then what leaves. */
const ORDER: Record<LedgerEvent['kind'], number> = { deposit: 0, trade: 1, transfer: 2, withdrawal: 3 };

/**
 * How long before the watermark a trade may be stored yet become visible only later: an insert's
 * created_at is its statement's start, and a statement lasts at most DATABASE_QUERY_TIMEOUT_MS.
 */
const COMMIT_MARGIN_MS = 5 * 60_000;

/** A ledger held in memory, the marks it was stored with, and whether its commit margin is settled. */
interface HeldLedger {
  marks: LedgerMarks;
  ledger: Ledger;
  settled: boolean;
}

export function createLedgerService(deps: { source: PortfolioSource; ledgers: LedgerStore }) {
  const { source } = deps;

  async function tradeEvents(rows: readonly PortfolioTradeRow[], prices: Pricer): Promise<LedgerEvent[]> {
    const out: LedgerEvent[] = [];
    for (const row of rows) {
      if (
        row.price === null ||
        row.amount === null ||
        row.total === null ||
        (row.side !== 'buy' && row.side !== 'sell')
      )
        continue;
      const [base, pairQuote] = row.symbol.split(':')[0]!.split('/');
      if (!base || !pairQuote) continue;
      const at = row.tradeTimestamp;
      const rate = pairQuote === prices.quote ? dec(1) : await prices.at(pairQuote, at);
      if (!rate) continue;
      const fee = dec(row.fee ?? 0);
      const feeCurrency = row.feeCurrency;
      let feeRate: Dec | undefined;
      if (feeCurrency && fee.gt(0) && feeCurrency !== base && feeCurrency !== pairQuote) {
        feeRate = feeCurrency === prices.quote ? dec(1) : ((await prices.at(feeCurrency, at)) ?? dec(0));
      }
      out.push({
        kind: 'trade',
        at,
        exchange: row.exchange,
        base,
        quote: pairQuote,
        side: row.side,
        amount: dec(row.amount),
        price: dec(row.price),
        total: dec(row.total),
        fee,
        feeCurrency,
        rate,
        feeRate,
      });
    }
    return out;
  }

  /** Deposits, withdrawals and the transfers between the user's venues they pair into, valued when they happened. */
  async function transferEvents(
    userId: string,
    prices: Pricer,
    rowsRead?: PortfolioTransferRow[],
  ): Promise<LedgerEvent[]> {
    const rows = rowsRead ?? (await source.transfers(userId));
    const records: TransferRecord[] = rows.map((r) => ({
      id: r.id,
      type: r.type,
      exchange: r.exchange,
      asset: r.currency,
      amount: dec(r.amount),
      fee: dec(r.fee),
      at: r.transferTimestamp,
      txid: r.txid,
    }));
    const { transfers, deposits, withdrawals } = matchTransfers(records);
    const out: LedgerEvent[] = [];
    const priceAt = (asset: string, at: Date) =>
      asset === prices.quote ? Promise.resolve(dec(1)) : prices.at(asset, at);
    for (const d of deposits) {
      const price = await priceAt(d.asset, d.at);
      if (price) out.push({ kind: 'deposit', at: d.at, exchange: d.exchange, asset: d.asset, amount: d.amount, price });
    }
    for (const w of withdrawals) {
      const price = await priceAt(w.asset, w.at);
      if (price)
        out.push({
          kind: 'withdrawal',
          at: w.at,
          exchange: w.exchange,
          asset: w.asset,
          amount: w.amount,
          fee: w.fee,
          price,
        });
    }
    for (const { withdrawal: w, deposit: d } of transfers) {
      const price = await priceAt(w.asset, w.at);
      // What left the sending venue and did not arrive is the transfer's cost.
      const lost = w.amount.plus(w.fee).minus(d.amount);
      if (price)
        out.push({
          kind: 'transfer',
          at: w.at,
          from: w.exchange,
          to: d.exchange,
          asset: w.asset,
          amount: d.amount,
          fee: lost.gt(0) ? lost : dec(0),
          price,
        });
    }
    return out;
  }

  /** The watermark of the rows applied, and how many of them were stored within the commit margin before it. */
  function recentMarks(rows: readonly PortfolioTradeRow[]): { watermark: Date; marginCount: number } {
    const newest = rows.reduce((max, r) => Math.max(max, r.createdAt.getTime()), 0);
    return {
      watermark: new Date(newest),
      marginCount: rows.filter((r) => r.createdAt.getTime() >= newest - COMMIT_MARGIN_MS).length,
    };
  }

  const byTime = (a: LedgerEvent, b: LedgerEvent) => a.at.getTime() - b.at.getTime() || ORDER[a.kind] - ORDER[b.kind];

  /** The whole ledger, replayed from every stored trade and transfer, and the marks of what it read. */
  async function replay(userId: string, prices: Pricer): Promise<{ ledger: Ledger; marks: LedgerMarks }> {
    const [tradeRows, transferRows] = await Promise.all([source.trades(userId), source.transfers(userId)]);
    const [fills, moves] = await Promise.all([
      tradeEvents(tradeRows, prices),
      transferEvents(userId, prices, transferRows),
    ]);
    const all = [...fills, ...moves].sort(byTime);
    const ledger = applyEvents(emptyLedger(prices.quote), all);
    const marks: LedgerMarks = {
      trades: tradeRows.length,
      transfers: transferRows.length,
      ...recentMarks(tradeRows),
      lastEventAt: all.length === 0 ? null : all.at(-1)!.at,
    };
    return { ledger, marks };
  }

  /**
   * Ledgers held in memory with the marks they were stored with: while the stored marks are the same,
   * the state is not read again (a large JSON). Never mutated: a change makes a new ledger. `settled`:
   * the commit margin before the watermark was counted as applied at a database time at least the
   * margin past the watermark, when no trade stored within it could still commit (docs/decisions/630).
   */
  const held = new Map<string, HeldLedger>();
  const HELD_MAX = 1000;
  const sameMarks = (a: LedgerMarks, b: LedgerMarks) =>
    a.trades === b.trades &&
    a.transfers === b.transfers &&
    a.marginCount === b.marginCount &&
    a.watermark?.getTime() === b.watermark?.getTime() &&
    a.lastEventAt?.getTime() === b.lastEventAt?.getTime();

  async function storedLedger(userId: string, quote: string): Promise<HeldLedger | undefined> {
    const key = `${userId}:${quote}`;
    const marks = await deps.ledgers.marks(userId, quote);
    if (!marks) return undefined;
    const memo = held.get(key);
    if (memo && sameMarks(memo.marks, marks)) return memo;
    const stored = await deps.ledgers.load(userId, quote);
    if (!stored) return undefined;
    return remember(userId, quote, stored.marks, restoreLedger(stored.state));
  }

  function remember(userId: string, quote: string, marks: LedgerMarks, ledger: Ledger): HeldLedger {
    if (held.size >= HELD_MAX) held.clear();
    const entry: HeldLedger = { marks, ledger, settled: false };
    held.set(`${userId}:${quote}`, entry);
    return entry;
  }

  async function save(userId: string, quote: string, ledger: Ledger, marks: LedgerMarks) {
    await deps.ledgers.save(userId, quote, storeLedger(ledger), marks);
    remember(userId, quote, marks, ledger);
  }

  /**
   * The ledger for the summary, maintained incrementally (docs/decisions/156): the stored state when
   * nothing was stored since; the stored state plus the trades stored since when they all come after
   * every event it holds; otherwise a replay. Either way the state is stored again.
   */
  async function currentLedger(userId: string, prices: Pricer): Promise<Ledger> {
    const [stored, transfers] = await Promise.all([storedLedger(userId, prices.quote), source.transferCount(userId)]);
    if (stored && stored.marks.transfers === transfers && stored.marks.watermark) {
      const { marks } = stored;
      const watermark = marks.watermark!;
      // A statement that began before the watermark may have committed after it was read: the rows
      // within the margin before it must be the ones applied, else the stored state is not trusted.
      // Once they were counted so when the margin had passed, no such statement is left (settled).
      const [fresh, inMargin] = await Promise.all([
        source.tradesCreatedAfter(userId, watermark),
        stored.settled
          ? undefined
          : source.tradeCountCreatedBetween(userId, new Date(watermark.getTime() - COMMIT_MARGIN_MS), watermark),
      ]);
      if (!inMargin || inMargin.count === marks.marginCount) {
        if (inMargin && inMargin.at.getTime() >= watermark.getTime() + COMMIT_MARGIN_MS) stored.settled = true;
        if (fresh.length === 0) return stored.ledger;
        const after = marks.lastEventAt?.getTime() ?? -Infinity;
        if (fresh.every((r) => r.tradeTimestamp.getTime() >= after)) {
          // A fork, not the held one (it may be serving another request): it shares the lots the new
          // trades leave alone, so the cost is theirs, not every open lot's (docs/decisions/940).
          const ledger = forkLedger(stored.ledger);
          const added = (await tradeEvents(fresh, prices)).sort(byTime);
          applyEvents(ledger, added);
          const newest = new Date(fresh.reduce((max, r) => Math.max(max, r.createdAt.getTime()), watermark.getTime()));
          const { count: marginCount } = await source.tradeCountCreatedBetween(
            userId,
            new Date(newest.getTime() - COMMIT_MARGIN_MS),
            newest,
          );
          await save(userId, prices.quote, ledger, {
            trades: marks.trades + fresh.length,
            transfers: marks.transfers,
            watermark: newest,
            marginCount,
            lastEventAt: added.at(-1)?.at ?? marks.lastEventAt,
          });
          return ledger;
        }
      }
    }
    const { ledger, marks } = await replay(userId, prices);
    await save(userId, prices.quote, ledger, marks);
    return ledger;
  }

  return {
    /**
     * Every event of the user in the report quote, fills first, unsorted. A trade whose
     * pair cannot be valued is left out.
     */
    async events(userId: string, prices: Pricer): Promise<LedgerEvent[]> {
      const [fills, moves] = await Promise.all([
        source.trades(userId).then((rows) => tradeEvents(rows, prices)),
        transferEvents(userId, prices),
      ]);
      return [...fills, ...moves];
    },
    /** The whole ledger replayed, closed parts included. */
    async replayed(userId: string, prices: Pricer): Promise<Ledger> {
      return (await replay(userId, prices)).ledger;
    },
    /** The ledger kept between requests, brought up to date (no closed parts). */
    current: currentLedger,
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
