// Credentials and key validation: requests and responses.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { VALIDATION_STATUSES } from './credentials.domain.ts';
import { VenueField } from './common.schemas.ts';

const Permission = StringEnum(['read', 'trade', 'withdraw'] as const, { description: 'read, trade or withdraw.' });
const Permissions = Type.Array(Permission, {
  maxItems: 3,
  description: 'What the key is allowed to do, as you set it up at the venue. Default ["read"].',
});
const IpWhitelist = Type.Array(
  Type.String({ format: 'ip-or-cidr', description: 'An IPv4/IPv6 address or CIDR range.' }),
  {
    maxItems: 100,
    description: 'The addresses the key is bound to at the venue (IPv4/IPv6 addresses or CIDR ranges).',
  },
);
const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Venue-specific settings, stored as given.',
});
const CredentialName = (extra: { default?: string } = {}) =>
  Type.String({ minLength: 1, maxLength: 100, description: 'Your name for the key, 1 to 100 characters.', ...extra });
// Keys and passphrases travel in HTTP headers (X-MBX-APIKEY, KC-API-PASSPHRASE...), where a newline or
// a character beyond Latin-1 makes fetch throw before any venue is asked; refused here, that is a 422
// instead of a bogus "venue unreachable". Secrets stay free-form: they are only signing keys, and
// Coinbase's are PEM blocks with newlines.
const API_KEY_PATTERN = '^[\\x21-\\x7E]+$';
const PASSPHRASE_PATTERN = '^[\\x20-\\x7E]+$';
const ApiKeyString = (options: { minLength: number; description: string }) =>
  Type.String({ ...options, maxLength: 512, pattern: API_KEY_PATTERN });
const ApiKey = ApiKeyString({
  minLength: 8,
  description: 'API key, at least 8 printable ASCII characters without spaces. Stored encrypted, never returned.',
});
const ApiSecret = Type.String({
  minLength: 8,
  maxLength: 2048,
  description: 'API secret, at least 8 characters. Stored encrypted, never returned.',
});
const Passphrase = (description = 'API passphrase (okx), printable ASCII. Stored encrypted, never returned.') =>
  Type.String({ minLength: 1, maxLength: 256, pattern: PASSPHRASE_PATTERN, description });

export const CredentialListQuery = Type.Object({
  exchange_name: Type.Optional(VenueField('Only credentials for this venue.')),
});

export const CredentialIdParams = Type.Object({
  credential_id: Uuid('Credential id. A malformed id is a 422 (uuid_parsing); an id that is not yours is a 404.'),
});

export const CredentialCreateBody = Type.Object({
  exchange_name: VenueField('The venue the key belongs to.'),
  credential_name: Type.Optional(CredentialName({ default: 'Default' })),
  api_key: ApiKey,
  api_secret: ApiSecret,
  api_passphrase: Type.Optional(Passphrase()),
  permissions: Type.Optional(Permissions),
  ip_whitelist: Type.Optional(IpWhitelist),
  exchange_metadata: Type.Optional(Metadata),
});
export type CredentialCreateBody = Static<typeof CredentialCreateBody>;

export const CredentialUpdateBody = Type.Object({
  credential_name: Type.Optional(CredentialName()),
  api_key: Type.Optional(ApiKey),
  api_secret: Type.Optional(ApiSecret),
  api_passphrase: Type.Optional(
    Nullable(Passphrase('New passphrase; null removes it (not allowed where the venue needs one).')),
  ),
  permissions: Type.Optional(Permissions),
  ip_whitelist: Type.Optional(IpWhitelist),
  exchange_metadata: Type.Optional(Metadata),
  is_active: Type.Optional(Type.Boolean({ description: 'Inactive credentials are never used for venue calls.' })),
});
export type CredentialUpdateBody = Static<typeof CredentialUpdateBody>;

const credentialFields = {
  id: Uuid('Credential id.'),
  user_id: Uuid('Owner.'),
  exchange_name: Type.String({ description: 'Venue (ccxt id).' }),
  credential_name: Type.String({ description: 'Your name for the key.' }),
  permissions: Type.Array(Type.String(), { description: 'What you declared the key may do.' }),
  ip_whitelist: Type.Array(Type.String(), { description: 'Addresses or CIDR ranges the key is bound to.' }),
  exchange_metadata: Type.Record(Type.String(), Type.Unknown(), {
    description: 'Venue-specific settings.',
    additionalProperties: true,
  }),
  is_active: Type.Boolean({ description: 'Whether venue calls may use it.' }),
  last_used: Nullable(DateTime('Last venue call made with it.')),
  last_validation: Nullable(DateTime('Last time a venue judged the key.')),
  validation_status: StringEnum(VALIDATION_STATUSES, {
    description:
      'pending (not yet tried), valid (the venue accepted it), invalid (the venue refused it), error (the ' +
      'venue could not be asked; an earlier verdict is kept).',
  }),
  validation_error: Nullable(Type.String({ description: 'Why the last check failed.' })),
  created_at: DateTime('Created.'),
  updated_at: DateTime('Last changed.'),
};

export const Credential = Type.Object(credentialFields, {
  description: 'Exchange credential; key, secret and passphrase are never returned.',
});
export type Credential = Static<typeof Credential>;

export const CredentialDetail = Type.Object(
  {
    ...credentialFields,
    api_key_masked: Type.String({
      description: 'First and last (up to) four characters of the key around ****; never more than a third of it.',
    }),
    has_passphrase: Type.Boolean({ description: 'Whether a passphrase is stored.' }),
  },
  { description: 'Exchange credential with the masked key.' },
);
export type CredentialDetail = Static<typeof CredentialDetail>;

export const CredentialList = Type.Object({
  credentials: Type.Array(Credential, { description: 'Your credentials, newest first.' }),
  total_count: Type.Integer({ description: 'How many.' }),
});
export type CredentialList = Static<typeof CredentialList>;

export const DeleteResult = Type.Object({
  success: Type.Boolean({ description: 'Always true.' }),
  message: Type.String({ description: 'What happened.' }),
  deleted_id: Uuid('The deleted credential.'),
});
export type DeleteResult = Static<typeof DeleteResult>;

export const ValidateBody = Type.Object({
  exchange: VenueField('The venue to try the key on.'),
  api_key: ApiKeyString({
    minLength: 1,
    description: 'API key, printable ASCII without spaces; only sent to the venue.',
  }),
  api_secret: Type.String({ minLength: 1, maxLength: 2048, description: 'API secret; only used to sign the request.' }),
  api_passphrase: Type.Optional(Passphrase()),
});
export type ValidateBody = Static<typeof ValidateBody>;

const KeyPermissions = Type.Object(
  {
    read: Type.Boolean({ description: 'May read account data.' }),
    trade: Type.Boolean({ description: 'May trade spot.' }),
    withdraw: Type.Boolean({ description: 'May withdraw.' }),
  },
  { description: 'What the venue says the key may do.' },
);

export const ValidationResult = Type.Object({
  valid: Type.Boolean({ description: 'Whether the venue accepted the key for reading the account.' }),
  exchange: Type.String({ description: 'Venue.' }),
  cause: Nullable(
    StringEnum(
      [
        'wrong_venue',
        'invalid_key',
        'missing_passphrase',
        'ip_not_whitelisted',
        'missing_permission',
        'rate_limited',
        'venue_unreachable',
        'venue_error',
      ] as const,
      { description: 'Why the key is not usable; null when valid.' },
    ),
  ),
  message: Type.String({ description: "The verdict in words, with the venue's own message on refusal." }),
  permissions: Nullable(KeyPermissions),
  ip_restricted: Nullable(Type.Boolean({ description: 'Whether the key is bound to IP addresses (binance only).' })),
  currencies_with_balance: Nullable(
    Type.Integer({ description: 'Currencies with a non-zero balance, when the key could read them.' }),
  ),
  warnings: Type.Array(Type.String(), { description: 'Advice about risky key settings.' }),
  retry_after: Nullable(Type.Number({ description: 'Seconds to wait before trying again, after a rate limit.' })),
  checked_at: DateTime('When the venue was asked.'),
  updated_credential_ids: Type.Array(Uuid(), {
    description: 'Your stored credentials holding this key, whose validation fields were updated.',
  }),
});
export type ValidationResult = Static<typeof ValidationResult>;
