// Schemas of the two feeds of the command center: market intel and agent activity.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { INTEL_DIRECTIONS, TRUST_TIERS } from './intel-scoring.domain.ts';

const OpenObject = (description: string) =>
  Type.Record(Type.String(), Type.Unknown(), { description, additionalProperties: true });

export const IntelQuery = Type.Object({
  include_quarantined: Type.Boolean({
    default: true,
    description: 'Include events whose trust_tier is `quarantined`.',
  }),
  active: Type.Boolean({
    default: false,
    description:
      'Only events not yet expired: expires_at in the future, or, without expires_at, detected less than 24 hours ago.',
  }),
  limit: Type.Integer({
    minimum: 1,
    maximum: 500,
    default: 100,
    description: 'Events to return, 1 to 500, newest first.',
  }),
});
export type IntelQuery = Static<typeof IntelQuery>;

export const IntelEvent = Type.Object({
  id: Uuid('Event id.'),
  event_type: Type.String({ description: 'Kind of signal, e.g. `whale_transfer`, `listing`, `funding_spike`.' }),
  asset: Type.String({ description: 'Asset concerned, e.g. `BTC`.' }),
  symbol: Type.String({ description: 'Market symbol concerned, e.g. `BTCUSDT`.' }),
  direction: Type.String({
    description: 'Expected move: `bullish`, `long`, `up` (positive) or `bearish`, `short`, `down` (negative).',
  }),
  source: Type.String({ description: 'Where the signal came from; the summary is keyed by it.' }),
  trust_tier: Type.String({ description: '`verified`, `standard` or `quarantined`.' }),
  raw_note: Type.String({ description: 'The source text or note, verbatim.' }),
  strength: Type.Number({ description: 'Confidence of the signal, 0 to 1.' }),
  evidence: OpenObject('Supporting data (links, figures), as sent.'),
  detected_at: DateTime('When the signal was detected.'),
  expires_at: Nullable(DateTime('When the signal stops being relevant; null: 24 hours after detection.')),
  created_at: DateTime('When the event was recorded.'),
  outcome_pct: Nullable(
    Type.Number({ description: 'Realised price move in percent over the horizon; null until scored.' }),
  ),
  scoring_error: Nullable(
    Type.String({ description: 'Why the last attempt to score it failed; null when scored or not tried yet.' }),
  ),
  scoring_attempts: Type.Integer({
    description:
      'Runs in which the venue could not price it (symbol not listed, no candle); the scoring job gives up after 3.',
  }),
});
export type IntelEvent = Static<typeof IntelEvent>;

const SourceSummary = Type.Object({
  total: Type.Integer({ description: 'Events of this source matching the filters.' }),
  scored: Type.Integer({ description: 'Of those, events with an outcome_pct.' }),
  correct: Type.Integer({ description: 'Scored events whose direction matched the sign of outcome_pct.' }),
  precision: Type.Number({ description: 'correct / scored; 0 when nothing is scored.' }),
});

export const IntelFeed = Type.Object({
  events: Type.Array(IntelEvent, { description: 'Events, newest detection first.' }),
  summary: Type.Record(Type.String(), SourceSummary, {
    description: 'Per source, over every event matching include_quarantined and active (not only the returned page).',
    additionalProperties: true,
  }),
});
export type IntelFeed = Static<typeof IntelFeed>;

export const IntelCreateBody = Type.Object({
  event_type: Type.String({ minLength: 1, maxLength: 64, description: 'Kind of signal, e.g. `whale_transfer`.' }),
  asset: Type.String({ minLength: 1, maxLength: 32, description: 'Asset concerned, e.g. `BTC` (stored upper-case).' }),
  symbol: Type.String({
    minLength: 1,
    maxLength: 32,
    description: 'Market symbol, e.g. `BTCUSDT` (stored upper-case).',
  }),
  direction: StringEnum(INTEL_DIRECTIONS, {
    description: 'Expected move: `bullish`, `bearish`, `long`, `short`, `up` or `down`.',
  }),
  source: Type.String({ minLength: 1, maxLength: 100, description: 'Where the signal came from.' }),
  trust_tier: Type.Optional(
    StringEnum(TRUST_TIERS, { default: 'standard', description: '`verified`, `standard` (default) or `quarantined`.' }),
  ),
  strength: Type.Number({ minimum: 0, maximum: 1, description: 'Confidence, 0 to 1.' }),
  evidence: Type.Optional(OpenObject('Supporting data; an object.')),
  raw_note: Type.Optional(
    Type.String({ maxLength: 10_000, description: 'Source text or note, up to 10000 characters.' }),
  ),
  detected_at: Type.Optional(DateTime('When the signal was detected; defaults to now.')),
  expires_at: Type.Optional(Nullable(DateTime('When the signal stops being relevant; must be after detected_at.'))),
});
export type IntelCreateBody = Static<typeof IntelCreateBody>;

export const AgentActivityQuery = Type.Object({
  hours: Type.Integer({ minimum: 1, maximum: 720, default: 24, description: 'Look-back window in hours, 1 to 720.' }),
  agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Only this agent.' })),
  limit: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 500,
    description: 'Events to return at most, 1 to 1000, newest first.',
  }),
});
export type AgentActivityQuery = Static<typeof AgentActivityQuery>;

export const AgentActivityEvent = Type.Object({
  id: Uuid('Event id.'),
  agent_id: Type.String({ description: 'Agent identifier.' }),
  agent_name: Nullable(Type.String({ description: 'Display name of the agent.' })),
  kind: Type.String({ description: 'What the agent did, e.g. `trade_proposal`, `task_update`.' }),
  rationale: Type.String({ description: "The agent's stated reason." }),
  action: OpenObject('The action taken or proposed, as sent.'),
  created_at: DateTime('When it was recorded.'),
});
export type AgentActivityEvent = Static<typeof AgentActivityEvent>;

export const AgentActivityFeed = Type.Object({
  events: Type.Array(AgentActivityEvent, { description: 'Events within the window, newest first.' }),
});
export type AgentActivityFeed = Static<typeof AgentActivityFeed>;

export const AgentActivityCreateBody = Type.Object({
  agent_id: Type.String({ minLength: 1, maxLength: 128, description: 'Agent identifier.' }),
  agent_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Display name.' })),
  kind: Type.String({ minLength: 1, maxLength: 64, description: 'What the agent did.' }),
  rationale: Type.Optional(Type.String({ maxLength: 10_000, description: 'Why, up to 10000 characters.' })),
  action: Type.Optional(OpenObject('The action taken or proposed; an object.')),
});
export type AgentActivityCreateBody = Static<typeof AgentActivityCreateBody>;
