// Third-party provider API keys. The key itself is only ever stored sealed by the platform secret box.
import { boolean, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const providerApiKeys = pgTable(
  'provider_api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** openai | anthropic | google | mistral | groq | tavily | serper */
    provider: text('provider').notNull(),
    /** AES-256-GCM envelope from the secret box (key id, iv, tag, ciphertext). */
    encryptedKey: text('encrypted_key').notNull(),
    keyPrefix: text('key_prefix').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    lastUsedAt: at('last_used_at'),
    usageCount: integer('usage_count').notNull().default(0),
    lastRotatedAt: at('last_rotated_at'),
    rotationReminderDays: integer('rotation_reminder_days').notNull().default(90),
    nextRotationDate: at('next_rotation_date').notNull(),
    notes: text('notes'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
    createdBy: uuid('created_by'),
    updatedBy: uuid('updated_by'),
  },
  (t) => [
    index('provider_api_keys_provider_idx').on(t.provider, t.createdAt.desc()),
    index('provider_api_keys_rotation_idx').on(t.isActive, t.nextRotationDate),
  ],
);
