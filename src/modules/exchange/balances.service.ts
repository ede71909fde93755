// Balance snapshots: a sync asks the venue with the user's credential and stores what it holds; reads
// answer from the stored snapshots only, so they never wait for a venue.
import { audit } from './exchange.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { EXCHANGE_EVENTS } from './exchange.events.ts';
import { VenueError, type VenueBalance, type VenueGateway } from './adapters/venue-gateway.ts';
import type { BalanceRow, BalancesRepository } from './balances.repository.ts';
import { auditActor, type CredentialsService, type AccountActor } from './credentials.service.ts';
import type { Venue } from './venues.domain.ts';

/** One balance sync: what the venue holds for the credential, or why it could not say. */
export interface BalanceSync {
  success: boolean;
  userId: string;
  venue: Venue;
  /** The non-zero holdings stored; none on failure. */
  balances: VenueBalance[];
  syncedAt: Date;
  error: string | null;
  errorType: VenueError['errorType'] | null;
}

/** The latest stored snapshot of a venue (of one currency, when asked). */
export interface BalanceSnapshot {
  venue: Venue;
  /** The currency asked for, upper-cased. */
  currency: string | null;
  rows: BalanceRow[];
  /** When the snapshot was taken; null before the first sync. */
  syncedAt: Date | null;
}

/** One currency's stored snapshots, newest first. */
export interface BalanceHistory {
  venue: Venue;
  currency: string;
  rows: BalanceRow[];
  /** Snapshots in the window, beyond the limit too. */
  total: number;
}

export function createBalancesService(deps: {
  db: Db;
  repo: BalancesRepository;
  gateway: Pick<VenueGateway, 'balance'>;
  credentials: Pick<CredentialsService, 'resolve' | 'use' | 'ownedOn'>;
  clock: Clock;
  events: Pick<EventPublisher<typeof EXCHANGE_EVENTS>, 'user'>;
}) {
  const { repo, clock } = deps;

  return {
    async sync(venue: Venue, credentialId: string | undefined, ctx: AccountActor): Promise<BalanceSync> {
      const credential = await deps.credentials.resolve(ctx.id, venue, credentialId);
      const base = { userId: ctx.id, venue };
      try {
        const balances = await deps.credentials.use(credential, (keys) => deps.gateway.balance(venue, keys));
        const now = clock.now();
        await deps.db.transaction(async (tx) => {
          const syncId = await repo.recordSnapshot(
            { userId: ctx.id, exchange: venue, credentialId: credential.id, syncedAt: now, balances },
            tx,
          );
          await audit(
            {
              ...auditActor(ctx),
              action: 'exchange.balance.sync',
              subjectUserId: ctx.id,
              targetType: 'exchange_credential',
              targetId: credential.id,
              details: { exchange: venue, success: true, currencies_synced: balances.length, sync_id: syncId },
              ip: ctx.ip,
            },
            now,
            tx,
          );
        });
        await deps.events.user(ctx.id, 'balance.synced', {
          exchange: venue,
          credential_id: credential.id,
          success: true,
          currencies_synced: balances.length,
          error_type: null,
        });
        return { ...base, success: true, balances, syncedAt: now, error: null, errorType: null };
      } catch (error) {
        if (!(error instanceof VenueError)) throw error;
        const now = clock.now();
        await audit(
          {
            ...auditActor(ctx),
            action: 'exchange.balance.sync',
            subjectUserId: ctx.id,
            targetType: 'exchange_credential',
            targetId: credential.id,
            details: { exchange: venue, success: false, error_type: error.errorType, failure: error.failure },
            ip: ctx.ip,
          },
          now,
          deps.db,
        );
        await deps.events.user(ctx.id, 'balance.synced', {
          exchange: venue,
          credential_id: credential.id,
          success: false,
          currencies_synced: 0,
          error_type: error.errorType,
        });
        return {
          ...base,
          success: false,
          balances: [],
          syncedAt: now,
          error: String(error.detail),
          errorType: error.errorType,
        };
      }
    },

    async latest(userId: string, venue: Venue, currency?: string, credentialId?: string): Promise<BalanceSnapshot> {
      // Another user's credential id is a 404, as on every credential operation, not an empty answer.
      if (credentialId) await deps.credentials.ownedOn(userId, venue, credentialId);
      const snapshot = await repo.latest(userId, venue, credentialId);
      const wanted = currency?.toUpperCase();
      const rows = (snapshot?.rows ?? []).filter((row) => !wanted || row.currency === wanted);
      return { venue, currency: wanted ?? null, rows, syncedAt: snapshot?.syncedAt ?? null };
    },

    async history(query: {
      userId: string;
      venue: Venue;
      currency: string;
      start?: Date;
      end?: Date;
      limit: number;
    }): Promise<BalanceHistory> {
      const currency = query.currency.toUpperCase();
      const { rows, total } = await repo.history({ ...query, exchange: query.venue, currency });
      return { venue: query.venue, currency, rows, total };
    },
  };
}
