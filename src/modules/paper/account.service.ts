// The paper account: its balances valued at last prices, and a reset that cancels every resting order
// and replaces the balances. An account opens with PAPER_START_BALANCES on its first use.
import type { Logger } from 'pino';
import type { Actor } from '../../platform/auth/actor.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { audit } from './paper.audit.ts';
import type { Dec } from './matching.domain.ts';
import { equityOf, PAPER_QUOTE, type HeldBalance } from './paper.domain.ts';
import type { PaperRepository } from './paper.repository.ts';
import type { OrderChange } from './paper-venue.service.ts';

/** Last prices as the market module's quotes port gives them. */
export interface PaperQuotes {
  last(): Promise<{
    byPair: ReadonlyMap<string, { symbol: string }>;
    prices: ReadonlyMap<string, string>;
  }>;
}

export interface AccountView {
  quote: string;
  balances: HeldBalance[];
  equity: Dec | null;
  unpriced: string[];
  source: string;
}

export function createPaperAccountService(deps: {
  db: Db;
  repo: PaperRepository;
  clock: Clock;
  quotes: PaperQuotes;
  logger: Logger;
  startBalances: Readonly<Record<string, string>>;
  source: string;
  changed(change: OrderChange): void;
}) {
  const { db, repo, clock, quotes, logger } = deps;

  async function view(userId: string): Promise<AccountView> {
    await repo.ensureAccount(userId, deps.startBalances, clock.now());
    const balances = (await repo.balances(userId)).map((b) => ({ asset: b.asset, free: b.free, locked: b.locked }));
    let valued: { equity: Dec | null; unpriced: string[] } = { equity: null, unpriced: [] };
    try {
      const { byPair, prices } = await quotes.last();
      const price = (base: string, quote: string) => {
        const pair = byPair.get(`${base}/${quote}`);
        return pair ? prices.get(pair.symbol) : undefined;
      };
      const { equity, unpriced } = equityOf(balances, PAPER_QUOTE, { price });
      valued = { equity: equity.toDecimalPlaces(8), unpriced };
    } catch (error) {
      // The balances are the engine's own; only their value waits for the market to answer again.
      logger.warn({ err: error }, 'paper: last prices unavailable; equity left out');
      valued.unpriced = balances.filter((b) => b.asset !== PAPER_QUOTE).map((b) => b.asset);
    }
    return { quote: PAPER_QUOTE, balances, ...valued, source: deps.source };
  }

  return {
    account: view,

    /** Cancels every resting order (their locks go with the old balances, which are replaced whole). */
    async reset(balances: Readonly<Record<string, string>>, actor: Actor): Promise<AccountView> {
      const userId = actor.id;
      const now = clock.now();
      const canceled = await db.transaction(async (tx) => {
        await repo.ensureAccount(userId, deps.startBalances, now, tx);
        await repo.lockAccount(userId, tx);
        const resting = await repo.restingOf(userId, tx);
        for (const order of resting) {
          await repo.moveResting(
            order.id,
            order.filled,
            { status: 'canceled', filled: order.filled, reason: 'The paper account was reset.', at: now },
            tx,
          );
        }
        await repo.replaceBalances(userId, balances, now, tx);
        await audit(
          {
            actorId: userId,
            actorType: 'user',
            action: 'paper.account.reset',
            subjectUserId: userId,
            targetType: 'paper_account',
            targetId: userId,
            ip: actor.ip ?? null,
            details: { balances, canceledOrders: resting.length },
          },
          now,
          tx,
        );
        return resting;
      });
      for (const order of canceled) deps.changed({ userId, clientOrderId: order.clientOrderId });
      return view(userId);
    },
  };
}

export type PaperAccountService = ReturnType<typeof createPaperAccountService>;
