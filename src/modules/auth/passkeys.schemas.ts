// The passkey operations' bodies and answers (issue 41, decision 204). The credential is the JSON a
// browser's `credential.toJSON()` gives; its fields are declared so the validator keeps them.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { PASSKEY_PURPOSES } from '../users/index.ts';

const Base64Url = (description: string, maxLength = 4096) =>
  Type.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+={0,2}$', description });

const PasskeyName = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'A name to tell your passkeys apart, e.g. the device holding it.',
});

export const PasskeyOptionsBody = Type.Object({
  purpose: StringEnum(PASSKEY_PURPOSES, {
    description:
      '`register` (a new passkey; needs the bearer, and `password` while the account has no second factor), `login` (sign in without a password), `mfa` (the second ' +
      'factor of a password sign-in; needs `mfa_token`) or `step-up` (a fresh second factor; needs the bearer).',
  }),
  email: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 254,
      description:
        'For `login`: the account; only its passkeys complete the sign-in (the options are the same with or ' +
        'without it). Without it, any passkey of this site signs in to its own account.',
    }),
  ),
  mfa_token: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'For `mfa`: the `mfa_token` the password sign-in answered.',
    }),
  ),
  password: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        'For `register` on an account without a second factor: your password, as POST /api/auth/2fa/setup ' +
        'asks it (the passkey becomes what signs the account in). Not read otherwise.',
    }),
  ),
});
export type PasskeyOptionsBody = Static<typeof PasskeyOptionsBody>;

export const PasskeyOptions = Type.Object({
  challenge_token: Type.String({
    description: 'For POST /api/auth/passkeys/verify: single use, for this purpose only, valid 5 minutes.',
  }),
  options: Type.Object(
    { challenge: Type.String({ description: 'The challenge, base64url.' }) },
    {
      additionalProperties: true,
      description:
        'The WebAuthn options as JSON: for `register`, what `PublicKeyCredential.parseCreationOptionsFromJSON` ' +
        'takes; otherwise what `PublicKeyCredential.parseRequestOptionsFromJSON` takes.',
    },
  ),
});
export type PasskeyOptions = Static<typeof PasskeyOptions>;

const CredentialResponse = Type.Object(
  {
    clientDataJSON: Base64Url('The client data, base64url.'),
    attestationObject: Type.Optional(Base64Url('Registration: the attestation object, base64url.', 16_384)),
    authenticatorData: Type.Optional(Base64Url('The authenticator data, base64url.', 16_384)),
    signature: Type.Optional(Base64Url('Sign-in: the assertion signature, base64url.')),
    userHandle: Type.Optional(Base64Url('Sign-in: the user handle the passkey holds, base64url.')),
    transports: Type.Optional(
      Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10, description: 'How the authenticator is reached.' }),
    ),
    publicKey: Type.Optional(Base64Url('Registration: the public key (SPKI), base64url.')),
    publicKeyAlgorithm: Type.Optional(Type.Integer({ description: 'Registration: the COSE algorithm.' })),
  },
  { description: "The authenticator's answer." },
);

export const PasskeyVerifyBody = Type.Object({
  challenge_token: Type.String({ minLength: 1, maxLength: 512, description: 'What the options answered.' }),
  response: Type.Object(
    {
      id: Base64Url('The credential id, base64url.', 1024),
      rawId: Base64Url('The credential id, base64url.', 1024),
      type: Type.Literal('public-key', { description: 'Always `public-key`.' }),
      authenticatorAttachment: Type.Optional(
        Type.String({ maxLength: 32, description: '`platform` or `cross-platform`.' }),
      ),
      clientExtensionResults: Type.Object({}, { additionalProperties: true, description: 'Extension outputs.' }),
      response: CredentialResponse,
    },
    { description: "The browser's `credential.toJSON()`." },
  ),
  name: Type.Optional(PasskeyName),
});
export type PasskeyVerifyBody = Static<typeof PasskeyVerifyBody>;

export const Passkey = Type.Object({
  id: Uuid('Passkey id.'),
  name: Type.String({ description: 'Its name.' }),
  created_at: DateTime('When it was registered.'),
  last_used_at: Nullable(DateTime('When it last signed in or confirmed something.')),
  backed_up: Type.Boolean({ description: 'Whether it is synced beyond one device (e.g. by a password manager).' }),
  transports: Type.Array(Type.String(), { description: 'How the browser reaches it: `internal`, `usb`, `hybrid`, …' }),
});
export type Passkey = Static<typeof Passkey>;

export const PasskeyList = Type.Array(Passkey, { description: 'Your passkeys, oldest first.' });

export const PasskeyRenameBody = Type.Object({ name: PasskeyName });

export const PasskeyIdParams = Type.Object({
  passkey_id: Type.String({ description: 'Passkey id (UUID); any other value is an unknown passkey (404).' }),
});
