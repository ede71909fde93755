// Balance snapshots: requests and responses.
import { Type } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../platform/http/schemas.ts';
import { CredentialIdField, EndDate, ErrorTypeField, PageLimit, StartDate, VenueField } from './common.schemas.ts';

const Currency = (description: string) => Type.String({ minLength: 1, maxLength: 20, description });

export const BalanceQuery = Type.Object({
  exchange: VenueField(),
  currency: Type.Optional(Currency('Only this currency (case-insensitive).')),
  credential_id: Type.Optional(CredentialIdField()),
});

export const BalanceSyncQuery = Type.Object({
  exchange: VenueField(),
  credential_id: Type.Optional(CredentialIdField()),
});

export const BalanceHistoryQuery = Type.Object({
  exchange: VenueField(),
  currency: Currency('The currency (case-insensitive).'),
  start_date: StartDate(),
  end_date: EndDate(),
  limit: PageLimit(),
});

const amounts = {
  free: Type.Number({ description: 'Available.' }),
  locked: Type.Number({ description: 'In open orders.' }),
  total: Type.Number({ description: 'free + locked.' }),
};

const BalanceEntry = Type.Object({
  currency: Type.String({ description: 'Currency code.' }),
  ...amounts,
  sync_timestamp: DateTime('When the snapshot was taken.'),
});

export const BalanceResponse = Type.Object({
  balances: Type.Record(Type.String(), BalanceEntry, {
    description: 'Currency → its entry in the latest snapshot (non-zero holdings).',
  }),
  exchange: Type.String({ description: 'Venue.' }),
  currency: Nullable(Type.String({ description: 'The currency asked for, if any.' })),
  last_sync: Nullable(DateTime('When the latest snapshot was taken; null before the first sync.')),
});

export const BalanceSyncResult = Type.Object({
  success: Type.Boolean({ description: 'Whether the venue answered and the snapshot was stored.' }),
  user_id: Uuid('You.'),
  exchange: Type.String({ description: 'Venue.' }),
  currencies_synced: Type.Integer({ description: 'Currencies stored (non-zero holdings).' }),
  balances: Type.Record(Type.String(), Type.Object(amounts), { description: 'Currency → amounts.' }),
  timestamp: DateTime('When the sync ran.'),
  error: Nullable(Type.String({ description: 'What the venue said, on failure.' })),
  error_type: ErrorTypeField(),
});

export const BalanceHistory = Type.Object({
  history: Type.Array(
    Type.Object({ ...BalanceEntry.properties, sync_status: Type.String({ description: 'synced.' }) }),
    { description: 'Snapshots of the currency, newest first.' },
  ),
  exchange: Type.String({ description: 'Venue.' }),
  currency: Type.String({ description: 'Currency.' }),
  total_records: Type.Integer({ description: 'Snapshots in the window, beyond the limit too.' }),
});
