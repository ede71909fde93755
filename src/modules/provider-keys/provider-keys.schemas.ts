import { Type, type Static } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { PROVIDERS, REMINDER_WINDOW_DAYS } from './provider-keys.domain.ts';

const ProviderName = StringEnum(PROVIDERS, {
  description:
    'AI-model providers `openai`, `anthropic`, `google` (Gemini API), `mistral`, `groq`; ' +
    'web-search providers `tavily`, `serper`.',
});
const ApiKey = (description: string) =>
  Type.String({
    minLength: 10,
    maxLength: 512,
    // Printable ASCII without spaces: no vendor key has others, and a pasted newline must not reach a header.
    pattern: '^[\\x21-\\x7E]+$',
    writeOnly: true,
    description,
  });
const ReminderDays = (withDefault: boolean) =>
  Type.Integer({
    minimum: 30,
    maximum: 365,
    ...(withDefault ? { default: 90 } : {}),
    description: 'Days between rotations, 30 to 365 (default 90).',
  });
const Notes = Type.String({ maxLength: 2000, description: 'Free text, up to 2000 characters.' });

export const KeyIdParams = Type.Object({ key_id: Uuid('Key id (a UUID).') });
export type KeyIdParams = Static<typeof KeyIdParams>;

export const KeyListQuery = Type.Object({
  include_inactive: Type.Boolean({ default: false, description: 'Also list deactivated keys.' }),
});
export type KeyListQuery = Static<typeof KeyListQuery>;

export const KeyCreateBody = Type.Object({
  provider: ProviderName,
  api_key: ApiKey('The key in plaintext, at least 10 characters; stored encrypted and never returned.'),
  rotation_reminder_days: Type.Optional(ReminderDays(true)),
  notes: Type.Optional(Notes),
});
export type KeyCreateBody = Static<typeof KeyCreateBody>;

export const KeyUpdateBody = Type.Object({
  is_active: Type.Optional(
    Type.Boolean({ description: 'Deactivated keys are hidden from the list unless include_inactive.' }),
  ),
  rotation_reminder_days: Type.Optional(ReminderDays(false)),
  notes: Type.Optional(Nullable(Notes)),
  last_rotated_at: Type.Optional(
    DateTime('Marks the key as rotated at this time (not in the future); next_rotation_date is recomputed from it.'),
  ),
  api_key: Type.Optional(
    ApiKey(
      'A replacement key: re-encrypted, key_prefix updated, and the key marked as rotated now (or at last_rotated_at).',
    ),
  ),
});
export type KeyUpdateBody = Static<typeof KeyUpdateBody>;

export const KeyRecord = Type.Object({
  id: Uuid('Key id.'),
  provider: Type.String({ description: 'Provider identifier.' }),
  key_prefix: Type.String({
    description: 'The first characters of the key (at most 7, at most a quarter of it) followed by `…`.',
  }),
  is_active: Type.Boolean({ description: 'Whether the key is in use.' }),
  last_used_at: Nullable(DateTime('Last time the key was used (tested).')),
  usage_count: Type.Integer({ description: 'Times the key was used (tested).' }),
  last_rotated_at: Nullable(DateTime('Last rotation; null when never rotated.')),
  rotation_reminder_days: Type.Integer({ description: 'Days between rotations.' }),
  next_rotation_date: DateTime('(last_rotated_at, or created_at) + rotation_reminder_days.'),
  notes: Nullable(Type.String({ description: 'Notes.' })),
  created_at: DateTime('Creation time.'),
  updated_at: DateTime('Last change.'),
  created_by: Nullable(Uuid('Admin who added the key.')),
  updated_by: Nullable(Uuid('Admin who last changed it.')),
});
export type KeyRecord = Static<typeof KeyRecord>;

export const KeyTestResult = Type.Object({
  provider: Type.String({ description: 'Provider identifier.' }),
  is_valid: Type.Boolean({ description: 'True when the provider accepted the key.' }),
  error_message: Nullable(Type.String({ description: 'Why the key could not be confirmed; null when valid.' })),
  response_time_ms: Type.Integer({ description: 'Time the check took, in milliseconds.' }),
  tested_at: DateTime('When the check ran.'),
});
export type KeyTestResult = Static<typeof KeyTestResult>;

export const RotationReminder = Type.Object({
  id: Uuid('Key id.'),
  provider: Type.String({ description: 'Provider identifier.' }),
  key_prefix: Type.String({ description: 'Visible start of the key.' }),
  next_rotation_date: DateTime('When rotation is due.'),
  days_until_rotation: Type.Integer({
    description: `Whole days until then; 0 on the due day, negative when overdue (window: ${REMINDER_WINDOW_DAYS} days).`,
  }),
});
export type RotationReminder = Static<typeof RotationReminder>;
