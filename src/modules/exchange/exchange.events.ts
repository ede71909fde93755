// The account-stream events the exchange module publishes (its syncs, validations and credential
// changes), each with the schema of its data, declared here once; its module's declaration lists them.
import { Type } from 'typebox';
import { Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { defineStreamEvent } from '../../platform/stream-events.ts';

const exchange = Type.String({ description: 'Venue id, e.g. `binance`.' });
const errorType = Nullable(
  Type.String({ description: 'Why it failed (`auth`, `network`, `rate_limit`, ...); null on success.' }),
);

const balanceSynced = defineStreamEvent({
  type: 'balance.synced',
  audience: 'user',
  title: 'BalanceSyncedData',
  description: 'A balance sync of the user finished (POST /api/exchange/balance/sync), successfully or not.',
  data: Type.Object({
    exchange,
    credential_id: Uuid('The credential used.'),
    success: Type.Boolean(),
    currencies_synced: Type.Integer({ description: 'Currencies stored.' }),
    error_type: errorType,
  }),
});

export const tradesSynced = defineStreamEvent({
  type: 'trades.synced',
  audience: 'user',
  title: 'TradesSyncedData',
  description: 'A trade sync of the user finished, successfully or not.',
  data: Type.Object({
    exchange,
    credential_id: Uuid('The credential used.'),
    success: Type.Boolean(),
    symbols_synced: Type.Array(Type.String(), { description: 'Markets asked.' }),
    trades_synced: Type.Integer({ description: 'New trades stored.' }),
    trades_duplicate: Type.Integer({ description: 'Trades already stored.' }),
    error_type: errorType,
  }),
});

export const transfersSynced = defineStreamEvent({
  type: 'transfers.synced',
  audience: 'user',
  title: 'TransfersSyncedData',
  description:
    'A deposit and withdrawal sync of the user finished (POST /api/exchange/transfers/sync), successfully or not.',
  data: Type.Object({
    exchange,
    credential_id: Uuid('The credential used.'),
    success: Type.Boolean(),
    transfers_synced: Type.Integer({ description: 'New deposits and withdrawals stored.' }),
    error_type: errorType,
  }),
});

const portfolioUpdated = defineStreamEvent({
  type: 'portfolio.updated',
  audience: 'user',
  title: 'PortfolioUpdatedData',
  description: 'A sync stored new trades or transfers of the user: GET /api/portfolio/summary answers differently now.',
  data: Type.Object({
    exchange,
    cause: StringEnum(['trades', 'transfers'] as const, { description: 'What the sync stored.' }),
    stored: Type.Integer({ description: 'How many new records it stored.' }),
  }),
});

const credentialValidated = defineStreamEvent({
  type: 'credential.validated',
  audience: 'user',
  title: 'CredentialValidatedData',
  description:
    'A key was checked against its venue (POST /api/exchange/validate); the stored ' +
    'credentials holding it got the verdict.',
  data: Type.Object({
    exchange,
    valid: Type.Boolean(),
    cause: Nullable(
      Type.String({ description: 'Why not valid (`invalid_key`, `wrong_venue`, ...); null when valid.' }),
    ),
    credential_ids: Type.Array(Uuid(), { description: "The user's stored credentials with this key." }),
  }),
});

const credentialChanged = defineStreamEvent({
  type: 'credential.changed',
  audience: 'user',
  title: 'CredentialChangedData',
  description: 'A stored credential was created, updated or deleted. Keys and secrets are never in it.',
  data: Type.Object({
    credential_id: Uuid(),
    exchange,
    change: StringEnum(['created', 'updated', 'deleted'] as const),
    changed_fields: Type.Array(Type.String(), { description: 'Fields an update set (names only); empty otherwise.' }),
  }),
});

/** Every event of the module, in the order the OpenAPI document lists them. */
export const EXCHANGE_EVENTS = [
  balanceSynced,
  tradesSynced,
  transfersSynced,
  portfolioUpdated,
  credentialValidated,
  credentialChanged,
] as const;
