// Deposits and withdrawals: a sync reads the key's history from the venue in windows of at most 90
// days (Binance's bound) from the credential's cursor, a few windows per call, stores the new
// records (a known one only has its status updated) and moves the cursor (docs/decisions/155).
// Every call goes through the gateway, so it is charged to the venue's shared weight budget.
import type { Logger } from 'pino';
import { audit } from './exchange.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { EXCHANGE_EVENTS } from './exchange.events.ts';
import { VenueError, type VenueGateway, type VenueTransfer } from './adapters/venue-gateway.ts';
import { auditActor, type AccountActor, type CredentialsService } from './credentials.service.ts';
import { TRANSFER_TYPES, type TransferType } from './exchange.tables.ts';
import { cursorAfter, firstWindow, MAX_WINDOWS_PER_SYNC, nextStart, PAGE_LIMIT } from './transfer-cursor.domain.ts';
import type { NewTransfer, TransferRow, TransfersRepository } from './transfers.repository.ts';
import type { Venue } from './venues.domain.ts';
import { unstorableAmount } from './stored-amounts.domain.ts';

/** What one sync read of one transfer type. */
export interface TransferKindSync {
  type: TransferType;
  /** Records the venue sent in this call. */
  fetched: number;
  /** Of those, new. */
  synced: number;
  /** Of those, left out: incomplete, or an amount the columns cannot hold; the cursor moves past them. */
  skipped: SkippedTransfer[];
  /** Calls of at most 90 days made. */
  windows: number;
  /** Stopped before now. */
  hasMore: boolean;
  /** The cursor: the next sync reads from here. */
  syncedUntil: Date | null;
}

/** A record the venue sent that was not stored, and why. */
export interface SkippedTransfer {
  id: string | null;
  reason: string;
}

/** One deposits-and-withdrawals sync. */
export interface TransferSync {
  success: boolean;
  userId: string;
  venue: Venue;
  transfersSynced: number;
  hasMore: boolean;
  kinds: TransferKindSync[];
  syncedAt: Date;
  error: string | null;
  errorType: VenueError['errorType'] | null;
}

/** A page of stored transfers, newest first. */
export interface TransferPage {
  venue: Venue;
  rows: TransferRow[];
  total: number;
  hasMore: boolean;
}

function toRow(
  t: VenueTransfer,
  type: TransferType,
  context: { userId: string; venue: Venue; credentialId: string },
): NewTransfer | SkippedTransfer {
  if (t.id === null || t.timestamp === null || t.currency === null || t.amount === null)
    return { id: t.id, reason: 'without id, currency, amount or time' };
  const unstorable = unstorableAmount(t.amount) ?? unstorableAmount(t.fee);
  if (unstorable) return { id: t.id, reason: unstorable };
  return {
    userId: context.userId,
    exchange: context.venue,
    credentialId: context.credentialId,
    type,
    exchangeTransferId: t.id,
    currency: t.currency,
    amount: t.amount,
    fee: t.fee ?? '0',
    txid: t.txid,
    status: t.status ?? 'unknown',
    transferTimestamp: new Date(t.timestamp),
  };
}

const isSkipped = (row: NewTransfer | SkippedTransfer): row is SkippedTransfer => 'reason' in row;

export function createTransfersService(deps: {
  db: Db;
  repo: TransfersRepository;
  gateway: Pick<VenueGateway, 'transfers'>;
  credentials: Pick<CredentialsService, 'resolve' | 'use'>;
  clock: Clock;
  logger: Logger;
  events: Pick<EventPublisher<typeof EXCHANGE_EVENTS>, 'user'>;
  horizonDays: number;
}) {
  const { repo, gateway, clock } = deps;

  return {
    async sync(
      venue: Venue,
      options: { credentialId?: string; since?: Date },
      ctx: AccountActor,
    ): Promise<TransferSync> {
      const credential = await deps.credentials.resolve(ctx.id, venue, options.credentialId);
      const context = { userId: ctx.id, venue, credentialId: credential.id };
      const now = clock.now().getTime();
      const horizon = now - deps.horizonDays * 86_400_000;
      const kinds: TransferKindSync[] = [];
      let failure: VenueError | undefined;
      try {
        await deps.credentials.use(credential, async (keys) => {
          for (const type of TRANSFER_TYPES) {
            const previous = (await repo.cursor(credential.id, type))?.getTime() ?? null;
            let start = options.since?.getTime() ?? previous ?? horizon;
            const kind: TransferKindSync = {
              type,
              fetched: 0,
              synced: 0,
              skipped: [],
              windows: 0,
              hasMore: false,
              syncedUntil: null,
            };
            kinds.push(kind);
            for (
              let window = firstWindow(start, now);
              window && kind.windows < MAX_WINDOWS_PER_SYNC;
              window = firstWindow(start, now)
            ) {
              const fetched = await gateway.transfers(venue, keys, type, { ...window, limit: PAGE_LIMIT });
              kind.windows += 1;
              kind.fetched += fetched.length;
              const mapped = fetched.map((t) => toRow(t, type, context));
              const rows = mapped.filter((r): r is NewTransfer => !isSkipped(r));
              const skipped = mapped.filter(isSkipped);
              if (skipped.length > 0) {
                kind.skipped.push(...skipped);
                deps.logger.warn(
                  { venue, type, credentialId: credential.id, skipped },
                  'venue sent transfers that cannot be stored; skipped',
                );
              }
              kind.synced += await repo.upsert(rows);
              start = nextStart(window, fetched.filter((t) => t.timestamp !== null) as { timestamp: number }[]);
              // Each window's progress is kept at once: a failure later does not lose it.
              const cursor = cursorAfter(start, now, previous);
              await repo.saveCursor(credential.id, type, new Date(cursor));
              kind.syncedUntil = new Date(cursor);
            }
            kind.hasMore = start < now;
          }
        });
      } catch (error) {
        if (!(error instanceof VenueError)) throw error;
        failure = error;
      }
      const synced = kinds.reduce((sum, k) => sum + k.synced, 0);
      const at = clock.now();
      await audit(
        {
          ...auditActor(ctx),
          action: 'exchange.transfers.sync',
          subjectUserId: ctx.id,
          targetType: 'exchange_credential',
          targetId: credential.id,
          details: {
            exchange: venue,
            success: !failure,
            transfers_synced: synced,
            error_type: failure?.errorType ?? null,
          },
          ip: ctx.ip,
        },
        at,
        deps.db,
      );
      await deps.events.user(ctx.id, 'transfers.synced', {
        exchange: venue,
        credential_id: credential.id,
        success: !failure,
        transfers_synced: synced,
        error_type: failure?.errorType ?? null,
      });
      if (synced > 0)
        await deps.events.user(ctx.id, 'portfolio.updated', { exchange: venue, cause: 'transfers', stored: synced });
      return {
        success: !failure,
        userId: ctx.id,
        venue,
        transfersSynced: synced,
        hasMore: kinds.some((k) => k.hasMore),
        kinds,
        syncedAt: at,
        error: failure ? String(failure.detail) : null,
        errorType: failure?.errorType ?? null,
      };
    },

    async list(query: {
      userId: string;
      venue: Venue;
      type?: TransferType;
      start?: Date;
      end?: Date;
      limit: number;
      offset: number;
    }): Promise<TransferPage> {
      const { rows, total } = await repo.list(
        { userId: query.userId, exchange: query.venue, type: query.type, start: query.start, end: query.end },
        { limit: query.limit, offset: query.offset },
      );
      return { venue: query.venue, rows, total, hasMore: query.offset + rows.length < total };
    },
  };
}
