import { Type, type Static } from 'typebox';
import { DateTime, Nullable, Uuid } from '../../platform/http/schemas.ts';

const SOURCE_NAME_PATTERN = '^[a-z][a-z0-9_]{0,31}$';
/** Names one map may hold: in one PUT, and stored after merging (decision 992). */
export const MAX_SOURCES = 50;
const BOUNDS = {
  collection_interval_minutes: [5, 180],
  auto_expiration_days: [1, 365],
  max_posts_per_run: [100, 10_000],
  /** Per-source limit: at least one post, never more than a whole run may collect. */
  collection_limit: [1, 10_000],
} as const;

/** What a fresh installation starts with: the sources that need no account, collected twice an hour. */
export const DEFAULT_SETTINGS = {
  enabled_sources: { news: true, reddit: true, twitter: false, telegram: false, discord: false, youtube: false },
  collection_limits: { news: 200, reddit: 300, twitter: 200, telegram: 200, discord: 200, youtube: 50 },
  collection_interval_minutes: 30,
  auto_expiration_days: 30,
  max_posts_per_run: 1000,
} as const;

const sourceMap = <T extends ReturnType<typeof Type.Boolean> | ReturnType<typeof Type.Integer>>(
  value: T,
  description: string,
) =>
  Type.Record(Type.String({ pattern: SOURCE_NAME_PATTERN }), value, {
    additionalProperties: false,
    maxProperties: MAX_SOURCES,
    description,
  });

const range = (key: keyof typeof BOUNDS, description: string) =>
  Type.Integer({
    minimum: BOUNDS[key][0],
    maximum: BOUNDS[key][1],
    description: `${description} (${BOUNDS[key][0]} to ${BOUNDS[key][1]}).`,
  });

export const RagSettings = Type.Object({
  id: Uuid('Settings id.'),
  enabled_sources: Type.Record(Type.String(), Type.Boolean(), {
    additionalProperties: true,
    description: 'Source name to whether it is collected.',
  }),
  collection_limits: Type.Record(Type.String(), Type.Integer(), {
    additionalProperties: true,
    description: 'Source name to the most posts collected from it per run.',
  }),
  collection_interval_minutes: Type.Integer({ description: 'Minutes between collection runs.' }),
  auto_expiration_days: Type.Integer({ description: 'Days after which collected posts expire.' }),
  max_posts_per_run: Type.Integer({ description: 'Most posts one run collects over all sources.' }),
  version: Type.Integer({ description: 'Optimistic-locking version; starts at 1 and grows by one with every change.' }),
  created_at: DateTime('When the settings row was created.'),
  updated_at: DateTime('Last change.'),
  updated_by: Nullable(Uuid('Admin who made the last change; null until the first change.')),
});
export type RagSettings = Static<typeof RagSettings>;

export const RagSettingsUpdate = Type.Object({
  enabled_sources: Type.Optional(
    sourceMap(
      Type.Boolean(),
      'Sources to switch on or off; merged into the stored map (names: lower-case letters, digits, `_`), ' +
        'which holds at most 50 names.',
    ),
  ),
  collection_limits: Type.Optional(
    sourceMap(
      Type.Integer({ minimum: BOUNDS.collection_limit[0], maximum: BOUNDS.collection_limit[1] }),
      'Per-source post limits (1 to 10000); merged into the stored map, which holds at most 50 names.',
    ),
  ),
  collection_interval_minutes: Type.Optional(range('collection_interval_minutes', 'Minutes between collection runs')),
  auto_expiration_days: Type.Optional(range('auto_expiration_days', 'Days after which collected posts expire')),
  max_posts_per_run: Type.Optional(range('max_posts_per_run', 'Most posts per run')),
  version: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description:
        'The version the change is based on. When it differs from the stored one the change is refused with 409. ' +
        'When omitted the change is applied to whatever is stored (last write wins).',
    }),
  ),
});
export type RagSettingsUpdate = Static<typeof RagSettingsUpdate>;
