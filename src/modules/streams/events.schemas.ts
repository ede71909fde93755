// The account stream (GET /api/stream), its ticket, and each event's data, as the OpenAPI document
// shows them. Each SSE message's `data:` line is an envelope `{id, type, ts, data}` as JSON.
import { Type, type TSchema } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { sseMessage, StreamEnd } from '../../platform/http/sse.ts';
import type { EventType } from './events.domain.ts';

export const StreamQuery = Type.Object({
  ticket: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        "A ticket from `POST /api/stream/ticket`, instead of the Authorization header (browsers' EventSource cannot send one).",
    }),
  ),
  last_event_id: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'Same as the `Last-Event-ID` header, for a client that opens a new EventSource (the header wins when both are given).',
    }),
  ),
});

export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'The `id` of the last event received: the events after it (within 24 h) are sent first. EventSource sends it when it reconnects.',
    }),
  ),
});

export const TicketResponse = Type.Object(
  {
    ticket: Type.String({ description: 'Opaque, single use: `GET /api/stream?ticket=...`.' }),
    expires_in: Type.Integer({ description: 'Seconds the ticket stays valid (60).' }),
    expires_at: DateTime('When the ticket stops being valid.'),
  },
  { title: 'StreamTicket' },
);

const exchange = Type.String({ description: 'Venue id, e.g. `binance`.' });
const errorType = Nullable(
  Type.String({ description: 'Why it failed (`auth`, `network`, `rate_limit`, ...); null on success.' }),
);

const EVENT_DATA: Record<EventType, { title: string; description: string; schema: TSchema }> = {
  'balance.synced': {
    title: 'BalanceSyncedData',
    description: 'A balance sync of the user finished (POST /api/exchange/balance/sync), successfully or not.',
    schema: Type.Object({
      exchange,
      credential_id: Uuid('The credential used.'),
      success: Type.Boolean(),
      currencies_synced: Type.Integer({ description: 'Currencies stored.' }),
      error_type: errorType,
    }),
  },
  'trades.synced': {
    title: 'TradesSyncedData',
    description: 'A trade sync of the user finished, successfully or not.',
    schema: Type.Object({
      exchange,
      credential_id: Uuid('The credential used.'),
      success: Type.Boolean(),
      symbols_synced: Type.Array(Type.String(), { description: 'Markets asked.' }),
      trades_synced: Type.Integer({ description: 'New trades stored.' }),
      trades_duplicate: Type.Integer({ description: 'Trades already stored.' }),
      error_type: errorType,
    }),
  },
  'transfers.synced': {
    title: 'TransfersSyncedData',
    description:
      'A deposit and withdrawal sync of the user finished (POST /api/exchange/transfers/sync), successfully or not.',
    schema: Type.Object({
      exchange,
      credential_id: Uuid('The credential used.'),
      success: Type.Boolean(),
      transfers_synced: Type.Integer({ description: 'New deposits and withdrawals stored.' }),
      error_type: errorType,
    }),
  },
  'portfolio.updated': {
    title: 'PortfolioUpdatedData',
    description:
      'A sync stored new trades or transfers of the user: GET /api/portfolio/summary answers differently now.',
    schema: Type.Object({
      exchange,
      cause: StringEnum(['trades', 'transfers'] as const, { description: 'What the sync stored.' }),
      stored: Type.Integer({ description: 'How many new records it stored.' }),
    }),
  },
  'credential.validated': {
    title: 'CredentialValidatedData',
    description:
      'A key was checked against its venue (POST /api/exchange/validate); the stored credentials holding it got the verdict.',
    schema: Type.Object({
      exchange,
      valid: Type.Boolean(),
      cause: Nullable(
        Type.String({ description: 'Why not valid (`invalid_key`, `wrong_venue`, ...); null when valid.' }),
      ),
      credential_ids: Type.Array(Uuid(), { description: "The user's stored credentials with this key." }),
    }),
  },
  'credential.changed': {
    title: 'CredentialChangedData',
    description: 'A stored credential was created, updated or deleted. Keys and secrets are never in it.',
    schema: Type.Object({
      credential_id: Uuid(),
      exchange,
      change: StringEnum(['created', 'updated', 'deleted'] as const),
      changed_fields: Type.Array(Type.String(), { description: 'Fields an update set (names only); empty otherwise.' }),
    }),
  },
  'job.finished': {
    title: 'JobFinishedData',
    description: "Admins only: a scheduled job's run ended.",
    schema: Type.Object({
      job: Type.String({ description: 'Job name.' }),
      run_id: Nullable(Uuid('The run record; null when it could not be recorded.')),
      trigger: Type.String({ description: '`http` or `scheduler`.' }),
      status: StringEnum(['succeeded', 'partial', 'failed', 'skipped'] as const),
      started_at: DateTime(),
      finished_at: DateTime(),
    }),
  },
  'webhook.received': {
    title: 'WebhookReceivedData',
    description: 'Admins only: an inbound webhook delivery was verified and stored.',
    schema: Type.Object({
      provider: Type.String({
        description: 'codehost, payments, edge, tracker, errormon, database, authprovider or mailer.',
      }),
      event: Type.String({ description: "The provider's event name." }),
      delivery_id: Type.String(),
      status: Type.String({
        description: 'What became of it: `processed`, `duplicate`, `unmatched`, `superseded`, `failed`, ...',
      }),
    }),
  },
};

const envelope = (type: EventType) => {
  const { title, description, schema } = EVENT_DATA[type];
  return Type.Object(
    {
      id: Type.String({ description: 'The `id:` field (a sequence number), for `Last-Event-ID`.' }),
      event: Type.Literal(type, { description: 'The `event:` field.' }),
      data: Type.Object(
        {
          id: Type.String({ description: 'Same as the SSE id.' }),
          type: Type.Literal(type),
          ts: DateTime('When the event happened.'),
          data: { ...schema, title },
        },
        { description: 'The JSON of the `data:` line.' },
      ),
    },
    { title: `${title.replace(/Data$/, '')}Message`, description },
  );
};

const StreamEndMessage = sseMessage('StreamEndMessage', 'end', StreamEnd);

export const AccountStreamFrames = Type.Union(
  [...(Object.keys(EVENT_DATA) as EventType[]).map(envelope), StreamEndMessage],
  {
    description: 'The messages of the stream, one per SSE event.',
  },
);

export const ACCOUNT_STREAM_DESCRIPTION =
  "A `text/event-stream` (Server-Sent Events) of the caller's own account events (`balance.synced`, `trades.synced`, `credential.validated`, " +
  '`credential.changed`), and for admins also `job.finished` and `webhook.received`, from whichever instance produced them. ' +
  'Authenticate with the bearer token, or with `?ticket=` from `POST /api/stream/ticket` (single use, 60 s) where headers cannot be sent. ' +
  'Every event has an `id:`; reconnecting with `Last-Event-ID` (or `?last_event_id=`) first sends the events after it from the last 24 hours, then continues. ' +
  'The stream opens with `retry:`, sends a `: ping` comment every 15 s, and ends with an `end` event: at shutdown, when the client reads too slowly, ' +
  'or within about a second of the account being suspended or the session revoked. Limits: STREAM_MAX_PER_USER streams per user per instance (429), ' +
  'STREAM_MAX_CONNECTIONS per instance (503).';
