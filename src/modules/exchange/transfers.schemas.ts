// Deposits and withdrawals: requests and responses.
import { Type } from 'typebox';
import { DateTime, Nullable, RowOffset, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { CredentialIdField, EndDate, ErrorTypeField, PageLimit, StartDate, VenueField } from './common.schemas.ts';
import { TRANSFER_TYPES } from './exchange.tables.ts';

export const TransfersQuery = Type.Object({
  exchange: VenueField(),
  type: Type.Optional(StringEnum(TRANSFER_TYPES, { description: 'Only deposits or only withdrawals.' })),
  start_date: StartDate(),
  end_date: EndDate(),
  limit: PageLimit(),
  offset: RowOffset('Rows to skip. Default 0.'),
});

export const TransferSyncQuery = Type.Object({
  exchange: VenueField(),
  credential_id: Type.Optional(CredentialIdField()),
  since: Type.Optional(DateTime('Read from this instant (ISO 8601) instead of from where the last sync stopped.')),
});

const Transfer = Type.Object({
  id: Uuid('Our id.'),
  exchange_transfer_id: Type.String({ description: "The venue's id." }),
  exchange: Type.String({ description: 'Venue.' }),
  type: StringEnum(TRANSFER_TYPES, { description: 'deposit or withdrawal.' }),
  currency: Type.String({ description: 'Currency moved.' }),
  amount: Type.Number({ description: 'Amount deposited, or sent by a withdrawal.' }),
  fee: Type.Number({ description: "Charged on top of a withdrawal's amount, in the same currency (0 for deposits)." }),
  txid: Nullable(Type.String({ description: 'The network transaction id, when the venue reports one.' })),
  status: Type.String({ description: "ok, pending, failed or canceled (ccxt's); only ok counts in the portfolio." }),
  transfer_timestamp: DateTime('When the venue recorded it.'),
  created_at: DateTime('When it was stored.'),
});

export const TransferList = Type.Object({
  transfers: Type.Array(Transfer, { description: 'Newest first.' }),
  exchange: Type.String({ description: 'Venue.' }),
  total_records: Type.Integer({ description: 'Matching records in all.' }),
  has_more: Type.Boolean({ description: 'Whether more follow after this page.' }),
});

export const TransferSyncResult = Type.Object({
  success: Type.Boolean({ description: 'Whether every call succeeded.' }),
  user_id: Uuid('You.'),
  exchange: Type.String({ description: 'Venue.' }),
  transfers_synced: Type.Integer({ description: 'New deposits and withdrawals stored.' }),
  has_more: Type.Boolean({
    description: 'Whether a type stopped before now (at most 5 windows of 90 days per call): sync again to continue.',
  }),
  types: Type.Array(
    Type.Object({
      type: StringEnum(TRANSFER_TYPES, { description: 'deposit or withdrawal.' }),
      fetched: Type.Integer({ description: 'Records the venue sent in this call.' }),
      synced: Type.Integer({ description: 'Of those, new.' }),
      skipped: Type.Array(
        Type.Object({
          exchange_transfer_id: Nullable(
            Type.String({ description: "The venue's id of the record, when it sent one." }),
          ),
          reason: Type.String({
            description: 'Why: incomplete, or an amount beyond the numeric(38, 18) the amounts are stored as.',
          }),
        }),
        { description: 'Records the venue sent that were not stored; the cursor moves past them.' },
      ),
      windows: Type.Integer({ description: 'Calls of at most 90 days made.' }),
      has_more: Type.Boolean({ description: 'Stopped before now.' }),
      synced_until: Nullable(
        DateTime(
          'The cursor: the next sync reads from here (kept a day behind now, so late confirmations are read again).',
        ),
      ),
    }),
    { description: 'Per type: what this call read.' },
  ),
  timestamp: DateTime('When the sync ran.'),
  error: Nullable(Type.String({ description: 'What the venue said, on failure (records stored before it are kept).' })),
  error_type: ErrorTypeField(),
});
