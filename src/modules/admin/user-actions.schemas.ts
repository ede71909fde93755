// Schemas of the admin actions over users: bulk actions, export downloads and password resets.
import { Type, type Static } from 'typebox';
import { DateTime, StringEnum } from '../../platform/http/schemas.ts';
import { BULK_ACTIONS, MAX_BULK_IDS } from './users.schemas.ts';

export const BulkActionBody = Type.Object({
  userIds: Type.Array(Type.String({ minLength: 1, maxLength: 64, description: 'A user id.' }), {
    minItems: 1,
    maxItems: MAX_BULK_IDS,
    description:
      `Ids of the users to act on, 1..${MAX_BULK_IDS}. Duplicates count once; unknown ids are ` +
      'reported in `notFound`, not fatal.',
  }),
  action: StringEnum(BULK_ACTIONS, {
    description:
      '`activate` (status active; also restores deleted users), `suspend` (status suspended, sessions ' +
      'revoked), `delete` (soft delete, sessions revoked) or `export` (a CSV of those users, ' +
      'downloadable from `exportUrl`).',
  }),
});
export type BulkActionBody = Static<typeof BulkActionBody>;

export const BulkActionResult = Type.Object(
  {
    success: Type.Boolean({
      description: 'True once the request was carried out; what happened to each id is in the other fields.',
    }),
    action: Type.String({ description: 'The action performed.' }),
    processed: Type.Integer({
      description: 'How many users the action applied to (users already in the target state included).',
    }),
    notFound: Type.Array(Type.String(), { description: 'Ids that match no user (including ids that are not UUIDs).' }),
    skipped: Type.Array(
      Type.Object({
        id: Type.String({ description: 'User id.' }),
        reason: Type.String({ description: 'Why the user was left unchanged.' }),
      }),
      {
        description:
          "Users left unchanged on purpose: the acting admin's own account for " +
          '`suspend`/`delete`, a deleted user for `suspend`.',
      },
    ),
    exportId: Type.Optional(Type.String({ description: 'Only for `export`: id of the CSV.' })),
    exportUrl: Type.Optional(
      Type.String({ description: 'Only for `export`: path to GET the CSV from (admin token required).' }),
    ),
    expiresAt: Type.Optional(DateTime('Only for `export`: when the CSV stops being downloadable.')),
  },
  {
    description:
      'Outcome of a bulk action. The contract types this as an object of booleans; `success` is that boolean, ' +
      'and the other fields report what happened per id.',
  },
);
export type BulkActionResult = Static<typeof BulkActionResult>;

export const ExportParams = Type.Object({
  export_id: Type.String({ description: 'Export id from the bulk action; an unknown or expired id answers 404.' }),
});

export const ExportCsv = Type.String({
  description:
    'CSV (RFC 4180, UTF-8) with a header row: id, email, firstName, lastName, role, subscriptionTier, ' +
    'status, createdAt, lastLogin, emailVerified, twoFactorEnabled, totalTrades, accountBalance, avatar. ' +
    'Text cells starting with =, +, -, @, tab or carriage return are prefixed with a single quote so ' +
    'spreadsheets do not run them as formulas.',
});

export const ResetPasswordQuery = Type.Object({
  userId: Type.String({ minLength: 1, maxLength: 64, description: 'Id of the user.' }),
  email: Type.String({
    minLength: 1,
    maxLength: 254,
    description: "The user's e-mail; must belong to `userId` (case-insensitive).",
  }),
  sendEmail: Type.Boolean({
    default: true,
    description: 'Mail the new password to the user (through the outbox; not sent to suppressed addresses).',
  }),
});
export type ResetPasswordQuery = Static<typeof ResetPasswordQuery>;

export const ResetPasswordResult = Type.Object(
  {
    success: Type.Boolean({
      description: 'True: a new random password was set and every session of the user revoked.',
    }),
    emailSent: Type.Boolean({
      description:
        'Whether a mail with the new password was queued (false when not asked or the address is suppressed).',
    }),
  },
  { description: 'Outcome of the reset. The new password itself is never returned.' },
);
export type ResetPasswordResult = Static<typeof ResetPasswordResult>;
