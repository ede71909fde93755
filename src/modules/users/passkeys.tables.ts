// Passkeys (WebAuthn credentials) of an account, and the single-use challenges of their ceremonies
// (issue 41, decision 204). The identity module owns them as it owns the TOTP secret: both are an
// account's second factor. A credential's public key is no secret; nothing here needs sealing.
import { bigint, boolean, check, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { oneOf } from '../../platform/db/checks.ts';
import { mfaChallenges, users } from './users.tables.ts';

/** What a WebAuthn challenge was opened for; it is accepted for that only. */
export const PASSKEY_PURPOSES = ['register', 'login', 'mfa', 'step-up'] as const;
export type PasskeyPurpose = (typeof PASSKEY_PURPOSES)[number];

export const passkeys = pgTable(
  'passkeys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The credential id the authenticator chose, base64url. */
    credentialId: text('credential_id').notNull(),
    /** The COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    /** The signature counter last seen; an assertion at or below it (but not 0 and 0) is a cloned authenticator. */
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: text('transports').array().notNull().default([]),
    /** `singleDevice` or `multiDevice` (synced, e.g. by a password manager). */
    deviceType: text('device_type').notNull(),
    backedUp: boolean('backed_up').notNull().default(false),
    name: text('name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('passkeys_credential_key').on(t.credentialId),
    index('passkeys_user_idx').on(t.userId, t.createdAt),
    check('passkeys_device_type_check', oneOf(t.deviceType, ['singleDevice', 'multiDevice'])),
  ],
);

/**
 * A ceremony's challenge: the `challenge_token` the options answered, as its SHA-256 (the challenge
 * itself is derived from the token, so neither is stored), bound to its purpose and user (and, for a
 * step-up, the session; for a second factor, the sign-in waiting for it), single use, 5 minutes.
 */
export const webauthnChallenges = pgTable(
  'webauthn_challenges',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    purpose: text('purpose').$type<PasskeyPurpose>().notNull(),
    /** Null for a sign-in with a discoverable credential (no e-mail given, or an unknown one). */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /**
     * A sign-in that named an e-mail: only the passkeys of `user_id` complete it, and none when no account
     * has that e-mail (`user_id` null), so whether it has one is not told by the answer (decision 1100).
     */
    namedAccount: boolean('named_account').notNull().default(false),
    // No foreign key, as refresh tokens have none (users.routines.sql): sessions are deleted in bulk,
    // and a challenge naming a session that is gone can only be refused.
    sessionId: uuid('session_id'),
    mfaChallengeId: uuid('mfa_challenge_id').references(() => mfaChallenges.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('webauthn_challenges_hash_key').on(t.tokenHash),
    index('webauthn_challenges_expires_idx').on(t.expiresAt),
    // A user or a sign-in deleted deletes its challenges, found here (decision 1490).
    index('webauthn_challenges_user_idx').on(t.userId),
    index('webauthn_challenges_mfa_challenge_idx').on(t.mfaChallengeId),
    check('webauthn_challenges_purpose_check', oneOf(t.purpose, PASSKEY_PURPOSES)),
  ],
);
