// What the tests of the Linear backend share: the settings that point an app at the Linear fake, and
// that app with an admin signed in.
import { after, before } from 'node:test';
import { startLinearFake, type LinearFake } from '../../fakes/linear.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

/** The environment of an app whose tracker is the fake's Linear, its default team the fake's `eng`. */
export const linearEnv = (fake: LinearFake, extra: Record<string, string | undefined> = {}) => ({
  TRACKER_BACKEND: 'linear',
  TRACKER_API_URL: fake.url,
  TRACKER_API_KEY: fake.apiKey,
  TRACKER_DEFAULT_TEAM_ID: fake.teams.eng.id,
  ...extra,
});

/**
 * The Linear fake and an app whose tracker it is, with an admin signed in, for the enclosing describe:
 * started in its before hook, stopped in its after hook. The objects stay empty until that hook fills
 * them in, so the describe may take them at once, and its tests use them.
 */
export function useLinearApp() {
  const fake = {} as LinearFake;
  const t = {} as TestApp;
  const admin = {} as TestUser;
  before(async () => {
    Object.assign(fake, await startLinearFake());
    Object.assign(t, await buildTestApp({ env: linearEnv(fake) }));
    Object.assign(admin, await signIn(t.app, t.database, { role: 'admin' }));
  });
  after(async () => {
    await t.close();
    await fake.close();
  });
  return { fake, t, admin };
}
