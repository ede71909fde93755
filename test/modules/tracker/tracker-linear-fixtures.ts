// What the tests of the Linear backend share: the settings that point an app at the Linear fake.
import type { LinearFake } from '../../fakes/linear.ts';

/** The environment of an app whose tracker is the fake's Linear, its default team the fake's `eng`. */
export const linearEnv = (fake: LinearFake, extra: Record<string, string | undefined> = {}) => ({
  TRACKER_BACKEND: 'linear',
  TRACKER_API_URL: fake.url,
  TRACKER_API_KEY: fake.apiKey,
  TRACKER_DEFAULT_TEAM_ID: fake.teams.eng.id,
  ...extra,
});
