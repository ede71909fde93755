import { Type, type Static } from 'typebox';
import { DateTime, Nullable, StringEnum } from '../../platform/http/schemas.ts';
import { AGENT_STATUSES } from './agent-status.domain.ts';

const int = (description: string) => Type.Integer({ minimum: 0, description });
const when = (description: string) => Nullable(DateTime(description));

const Dependency = (what: string, kinds: readonly string[]) =>
  Type.Object(
    {
      kind: StringEnum(kinds, { description: `Which ${what} this instance uses.` }),
      status: StringEnum(['up', 'down'] as const, { description: '`up` when it answered a ping within 2 seconds.' }),
      latency_ms: Nullable(Type.Number({ description: 'Round trip of the ping in milliseconds; null when down.' })),
    },
    { description: `The ${what}, pinged for this answer.` },
  );

const Counted = (description: string) => Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description });

export const Overview = Type.Object({
  generated_at: DateTime('When this answer was made.'),
  status: StringEnum(['ok', 'degraded'] as const, {
    description: '`degraded` when the database or the configured cache is down, or a figure could not be read.',
  }),
  service: Type.Object(
    {
      version: Type.String({ description: "This service's version." }),
      started_at: DateTime('When this instance started.'),
      uptime_seconds: int('Seconds since this instance started.'),
    },
    { description: 'This service (versions of its dependencies are never shown).' },
  ),
  database: Dependency('database', ['postgres', 'pglite']),
  cache: Dependency('cache', ['redis', 'memory']),
  counts: Type.Object(
    {
      users_by_status: Nullable(Counted('Users per status (`active`, `suspended`, `deleted`); null if unreadable.')),
      active_sessions: Nullable(int('Device sessions neither revoked nor expired.')),
      open_tasks_by_status: Nullable(
        Counted('Command-center tasks per open status (`todo`, `in_progress`, `blocked`, `in_review`).'),
      ),
      open_tasks: Nullable(int('Command-center tasks not `done` nor `cancelled`.')),
      webhook_deliveries_24h: Nullable(
        Type.Object(
          {
            total: int('Inbound webhook deliveries stored in the last 24 hours.'),
            by_provider: Counted('The same per provider, every provider listed.'),
          },
          { description: 'Inbound webhook deliveries received in the last 24 hours.' },
        ),
      ),
      outbox: Nullable(
        Type.Object(
          {
            backlog: int('Messages waiting for delivery or being delivered.'),
            dead_letters: int('Messages that exhausted their retries.'),
          },
          { description: 'The durable outbox of notifications and effects.' },
        ),
      ),
    },
    { description: 'Figures read from the modules; a figure that could not be read is null.' },
  ),
  jobs: Nullable(
    Type.Array(
      Type.Object({
        job: Type.String({ description: 'Job name, e.g. `cleanup-expired-tokens`.' }),
        status: StringEnum(['succeeded', 'partial', 'failed', 'skipped'] as const, {
          description:
            'Outcome of the run (`partial`: some of its units failed; `skipped`: another run covered the trigger).',
        }),
        trigger: StringEnum(['http', 'scheduler'] as const, { description: 'What started it.' }),
        started_at: DateTime('When it started.'),
        finished_at: when('When it ended; null while running.'),
        error: Nullable(Type.String({ description: 'Why it failed, cleaned of URLs and tokens.' })),
      }),
      { description: 'The last run of each scheduled job, by job name; null if unreadable.' },
    ),
  ),
});
export type Overview = Static<typeof Overview>;

export const AgentsAnswer = Type.Object({
  generated_at: DateTime('When this answer was made.'),
  thresholds: Type.Object(
    {
      active_within_minutes: int('Seen at most this long ago: `active`.'),
      idle_within_hours: int('Seen at most this long ago (and not active): `idle`; older or never: `silent`.'),
    },
    { description: 'How the status is decided.' },
  ),
  counts: Type.Object(
    { active: int('Active agents.'), idle: int('Idle agents.'), silent: int('Silent agents.') },
    { description: 'Agents per status.' },
  ),
  agents: Type.Array(
    Type.Object({
      id: Type.String({ description: 'The agent id as it reports activity or is assigned tasks.' }),
      name: Nullable(Type.String({ description: 'Latest name it reported; null if it never did.' })),
      last_seen_at: when('Its latest activity; null when only known from tasks.'),
      actions_24h: int('Activity events in the last 24 hours.'),
      open_tasks: int('Tasks assigned to it that are not `done` nor `cancelled`.'),
      status: StringEnum(AGENT_STATUSES, {
        description: '`active` (seen within 15 min), `idle` (within 24 h) or `silent`.',
      }),
    }),
    { description: 'Every agent seen in agent activity or tasks, most recently seen first.' },
  ),
});
export type AgentsAnswer = Static<typeof AgentsAnswer>;
