// The account stream (GET /api/stream), its ticket, and the envelope of each event, as the OpenAPI
// document shows them. Each SSE message's `data:` line is an envelope `{id, type, ts, data}` as JSON;
// the events and their data schemas are declared by the modules that publish them.
import { Type } from 'typebox';
import { DateTime } from '../../platform/http/schemas.ts';
import { sseMessage, StreamEnd } from '../../platform/http/sse.ts';
import type { StreamEventDefinition, StreamEventList } from '../../platform/stream-events.ts';

export const StreamQuery = Type.Object({
  ticket: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'A ticket from `POST /api/stream/ticket`, instead of the Authorization header ' +
        "(browsers' EventSource cannot send one).",
    }),
  ),
  last_event_id: Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'Same as the `Last-Event-ID` header, for a client that opens a new EventSource (the ' +
        'header wins when both are given).',
    }),
  ),
});

export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      maxLength: 40,
      description:
        'The `id` of the last event received: the events after it (within 24 h) are sent first. ' +
        'EventSource sends it when it reconnects.',
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

/** One event's SSE message: the envelope around the data schema its publisher declared. */
const envelope = ({ type, title, description, data }: StreamEventDefinition) =>
  Type.Object(
    {
      id: Type.String({ description: 'The `id:` field (a sequence number), for `Last-Event-ID`.' }),
      event: Type.Literal(type, { description: 'The `event:` field.' }),
      data: Type.Object(
        {
          id: Type.String({ description: 'Same as the SSE id.' }),
          type: Type.Literal(type),
          ts: DateTime('When the event happened.'),
          data: { ...data, title },
        },
        { description: 'The JSON of the `data:` line.' },
      ),
    },
    { title: `${title.replace(/Data$/, '')}Message`, description },
  );

const StreamEndMessage = sseMessage('StreamEndMessage', 'end', StreamEnd);

/** The messages of the stream: one per declared event, in the list's order, then `end`. */
export const accountStreamFrames = (events: StreamEventList) =>
  Type.Union([...events.map(envelope), StreamEndMessage], {
    description: 'The messages of the stream, one per SSE event.',
  });

export const ACCOUNT_STREAM_DESCRIPTION =
  "A `text/event-stream` (Server-Sent Events) of the caller's own account events (`balance.synced`, " +
  '`trades.synced`, `credential.validated`, `credential.changed`), and for admins also `job.finished` ' +
  'and `webhook.received` (with an API token, only if it also has `admin:read`), from whichever instance ' +
  'produced them. Authenticate with the bearer token, or ' +
  'with `?ticket=` from `POST /api/stream/ticket` (single use, 60 s) where headers cannot be sent. Every ' +
  'event has an `id:`; reconnecting with `Last-Event-ID` (or `?last_event_id=`) first sends the events ' +
  'after it from the last 24 hours, then continues. The stream opens with `retry:`, sends a `: ping` ' +
  'comment after 15 s without another event, and ends with an `end` event: at shutdown, when the client reads too slowly, or ' +
  'within about a second of the account being suspended, the session signed out or revoked, or the API ' +
  'token revoked or expired. Limits: STREAM_MAX_PER_USER ' +
  'streams per user per instance (429), STREAM_MAX_CONNECTIONS per instance (503).';
