// Set-up shared by the tests of the exchange operations: the venue fakes, the app pointed at them on a
// clock the tests may move forward, and a signed-in user.
import { after, before } from 'node:test';
import { shiftedClock } from '../../helpers/shifted-clock.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { startVenueFakes, type VenueFakes } from './venue-fakes.ts';

/**
 * The fakes and the app of the enclosing describe: started, and the user signed in, in its before hook;
 * stopped in its after hook. The objects stay empty until that hook fills them in, so the describe may
 * take them at once, and its tests use them.
 */
export function useVenueApp() {
  const clock = shiftedClock();
  const fakes = {} as VenueFakes;
  const t = {} as TestApp;
  const user = {} as TestUser;
  before(async () => {
    Object.assign(fakes, await startVenueFakes());
    Object.assign(t, await buildTestApp({ env: fakes.env(), clock }));
    Object.assign(user, await signIn(t.app, t.database));
  });
  after(async () => {
    await t.close();
    await fakes.close();
  });
  return { clock, fakes, t, user };
}
