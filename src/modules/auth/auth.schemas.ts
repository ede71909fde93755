import { Type, type Static } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { API_TOKEN_SCOPES } from '../../platform/auth/scopes.ts';

const Email = Type.String({ format: 'email', maxLength: 254, description: 'E-mail address; case-insensitive.' });
/** The rules of a password chosen by its user, at registration and when changing it. */
const NewPassword = (description: string) => Type.String({ minLength: 8, maxLength: 128, description });

export const RegisterBody = Type.Object({
  email: Email,
  password: NewPassword('At least 8 characters.'),
  firstName: Type.Optional(Type.String({ maxLength: 100, default: '', description: 'Given name.' })),
  lastName: Type.Optional(Type.String({ maxLength: 100, default: '', description: 'Family name.' })),
});
export type RegisterBody = Static<typeof RegisterBody>;

export const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254, description: 'E-mail address.' }),
  password: Type.String({ minLength: 1, maxLength: 128, description: 'Password.' }),
});
export type LoginBody = Static<typeof LoginBody>;

export const RefreshBody = Type.Object({
  refresh_token: Type.String({
    minLength: 1,
    maxLength: 512,
    description: 'The refresh token from login or the last refresh.',
  }),
});

export const TokenPair = Type.Object({
  access_token: Type.String({ description: 'JWT (HS256) for the Authorization: Bearer header.' }),
  token_type: Type.Literal('bearer', { description: 'Always `bearer`.' }),
  expires_in: Type.Integer({ description: 'Seconds until the access token expires.' }),
  refresh_token: Type.String({ description: 'Single-use token for POST /api/auth/refresh.' }),
});
export type TokenPair = Static<typeof TokenPair>;

export const ChangePasswordBody = Type.Object({
  current_password: Type.String({ minLength: 1, maxLength: 128, description: 'The password in use now.' }),
  new_password: NewPassword('The new password: 8 to 128 characters, as at registration, and not the current one.'),
});
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const Success = Type.Object({ success: Type.Boolean({ description: 'Always true.' }) });

const Code = Type.String({
  minLength: 1,
  maxLength: 16,
  description: 'The 6-digit code your authenticator app shows now.',
});
const RecoveryCode = Type.String({
  minLength: 1,
  maxLength: 32,
  description: 'One of the recovery codes shown at enrollment; each works once.',
});
const CurrentPassword = Type.String({ minLength: 1, maxLength: 128, description: 'Your password.' });

export const TwoFactorSetupBody = Type.Object({ password: CurrentPassword });
export type TwoFactorSetupBody = Static<typeof TwoFactorSetupBody>;

export const TwoFactorSetup = Type.Object({
  secret: Type.String({ description: 'The TOTP secret, base32 (RFC 4648, no padding); for apps that cannot scan.' }),
  otpauth_url: Type.String({
    description: '`otpauth://totp/<issuer>:<email>?secret=…&issuer=…` (SHA-1, 6 digits, 30 s).',
  }),
  qr_svg: Type.String({ description: 'The otpauth URL as a QR code, an SVG document.' }),
});
export type TwoFactorSetup = Static<typeof TwoFactorSetup>;

export const TwoFactorCodeBody = Type.Object({ code: Code });
export type TwoFactorCodeBody = Static<typeof TwoFactorCodeBody>;

export const RecoveryCodes = Type.Object({
  recovery_codes: Type.Array(Type.String(), {
    minItems: 10,
    maxItems: 10,
    description: 'Ten one-time recovery codes, shown this once; only their hashes are kept.',
  }),
});
export type RecoveryCodes = Static<typeof RecoveryCodes>;

export const TwoFactorDisableBody = Type.Object({
  password: CurrentPassword,
  code: Type.Optional(Code),
  recovery_code: Type.Optional(RecoveryCode),
});
export type TwoFactorDisableBody = Static<typeof TwoFactorDisableBody>;

const MFA_METHODS = ['totp', 'recovery_code', 'webauthn'] as const;

export const MfaRequired = Type.Object({
  mfa_required: Type.Literal(true, { description: 'The password was right; a second factor is needed.' }),
  mfa_token: Type.String({
    description:
      'For POST /api/auth/2fa/verify, or POST /api/auth/passkeys/options with purpose `mfa`: single use, valid 5 minutes.',
  }),
  methods: Type.Array(StringEnum(MFA_METHODS, { description: 'A second factor accepted.' }), {
    description: '`totp` and `recovery_code` with an authenticator app; `webauthn` with a passkey.',
  }),
});
export type MfaRequired = Static<typeof MfaRequired>;

export const LoginAnswer = Type.Union([TokenPair, MfaRequired], {
  description:
    'The token pair; or, for an account with two-factor authentication on, `mfa_required` and the `mfa_token` ' +
    'to verify the second factor with.',
});

export const TwoFactorVerifyBody = Type.Object({
  mfa_token: Type.String({ minLength: 1, maxLength: 512, description: 'The `mfa_token` login answered.' }),
  code: Type.Optional(Code),
  recovery_code: Type.Optional(RecoveryCode),
});
export type TwoFactorVerifyBody = Static<typeof TwoFactorVerifyBody>;

export const ApiTokenCreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'What the token is for, e.g. the bot using it.' }),
  scopes: Type.Array(StringEnum(API_TOKEN_SCOPES, { description: 'A scope.' }), {
    minItems: 1,
    maxItems: API_TOKEN_SCOPES.length,
    uniqueItems: true,
    description:
      'What the token may do: `market:read`, `account:read` (credentials, balances, trades, activity), ' +
      '`account:write` (syncs, credential changes), `stream:read`, `tracker:read`, `tracker:write`, ' +
      '`admin:read`, `admin:write` (the admin scopes for admins only).',
  }),
  expires_in_days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 365,
      default: 90,
      description: 'Days until the token expires: 1 to 365, 90 by default.',
    }),
  ),
});
export type ApiTokenCreateBody = Static<typeof ApiTokenCreateBody>;

const apiTokenFields = {
  id: Uuid('Token id.'),
  name: Type.String({ description: 'Its name.' }),
  prefix: Type.String({
    description: 'The first 12 characters of the token (`tpk_` and 8 more), to tell tokens apart.',
  }),
  scopes: Type.Array(StringEnum(API_TOKEN_SCOPES, { description: 'A scope.' }), {
    description: 'What the token may do.',
  }),
  expires_at: DateTime('When it stops working.'),
  created_at: DateTime('When it was made.'),
};

export const ApiTokenCreated = Type.Object({
  ...apiTokenFields,
  token: Type.String({
    description: 'The token, `tpk_…`, shown this once (only its hash is kept): `Authorization: Bearer tpk_…`.',
  }),
});
export type ApiTokenCreated = Static<typeof ApiTokenCreated>;

export const ApiToken = Type.Object({
  ...apiTokenFields,
  last_used_at: Nullable(DateTime('When it was last used (to the minute).')),
});
export type ApiToken = Static<typeof ApiToken>;

export const ApiTokenList = Type.Array(ApiToken, {
  description: 'Your tokens that are neither revoked nor expired, oldest first.',
});

export const ApiTokenIdParams = Type.Object({
  token_id: Type.String({ description: 'Token id (UUID); any other value is an unknown token (404).' }),
});

export const VerifyEmailBody = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 128,
    description: 'The code mailed by POST /api/auth/email/verify-request; it works once, within 24 hours.',
  }),
});
