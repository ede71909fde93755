// Balance snapshots: a sync asks the venue with the user's credential and stores what it holds; reads
// answer from the stored snapshots only, so they never wait for a venue.
import { audit } from './exchange.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { EXCHANGE_EVENTS } from './exchange.events.ts';
import { iso } from '../../platform/http/schemas.ts';
import { VenueError, type VenueGateway } from './adapters/venue-gateway.ts';
import type { BalanceRow, BalancesRepository } from './balances.repository.ts';
import { auditActor, type CredentialsService, type AccountActor } from './credentials.service.ts';
import type { Venue } from './venues.domain.ts';

function entry(row: BalanceRow) {
  return {
    currency: row.currency,
    free: Number(row.free),
    locked: Number(row.locked),
    total: Number(row.total),
    sync_timestamp: iso(row.syncTimestamp)!,
  };
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
    async sync(venue: Venue, credentialId: string | undefined, ctx: AccountActor) {
      const credential = await deps.credentials.resolve(ctx.id, venue, credentialId);
      const base = { user_id: ctx.id, exchange: venue };
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
        return {
          ...base,
          success: true,
          currencies_synced: balances.length,
          balances: Object.fromEntries(
            balances.map((b) => [
              b.currency,
              { free: Number(b.free), locked: Number(b.locked), total: Number(b.total) },
            ]),
          ),
          timestamp: now.toISOString(),
          error: null,
          error_type: null,
        };
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
          currencies_synced: 0,
          balances: {},
          timestamp: now.toISOString(),
          error: String(error.detail),
          error_type: error.errorType,
        };
      }
    },

    async latest(userId: string, venue: Venue, currency?: string, credentialId?: string) {
      // Another user's credential id is a 404, as on every credential operation, not an empty answer.
      if (credentialId) await deps.credentials.ownedOn(userId, venue, credentialId);
      const snapshot = await repo.latest(userId, venue, credentialId);
      const wanted = currency?.toUpperCase();
      const rows = (snapshot?.rows ?? []).filter((row) => !wanted || row.currency === wanted);
      return {
        balances: Object.fromEntries(rows.map((row) => [row.currency, entry(row)])),
        exchange: venue,
        currency: wanted ?? null,
        last_sync: iso(snapshot?.syncedAt),
      };
    },

    async history(query: { userId: string; venue: Venue; currency: string; start?: Date; end?: Date; limit: number }) {
      const currency = query.currency.toUpperCase();
      const { rows, total } = await repo.history({ ...query, exchange: query.venue, currency });
      return {
        history: rows.map((row) => ({ ...entry(row), sync_status: row.syncStatus })),
        exchange: query.venue,
        currency,
        total_records: total,
      };
    },
  };
}
