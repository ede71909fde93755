// Set-up shared by the tests of the tracker on its local backend: the app, an admin, and the calls
// every test makes through the HTTP API.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../src/platform/clock.ts';
import { LOCAL_DEFAULT_TEAM } from '../../../src/modules/tracker/adapters/local-tracker-backend.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

export const TEAM = LOCAL_DEFAULT_TEAM.id;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export type LocalTracker = Awaited<ReturnType<typeof startLocalTracker>>;

export async function startLocalTracker(clock: Clock) {
  const t: TestApp = await buildTestApp({ clock });
  const admin: TestUser = await signIn(t.app, t.database, { role: 'admin' });

  const call = (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = admin.headers,
  ) => t.app.inject({ method, url, payload: payload as object, headers });
  const create = async (fields: Record<string, unknown> = {}) => {
    const response = await call('POST', '/api/v1/tracker/issues', {
      teamId: TEAM,
      title: `Issue ${randomUUID().slice(0, 8)}`,
      ...fields,
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };
  const fileForAgent = (fields: Record<string, unknown>) =>
    call('POST', '/api/v1/tracker/issues/agent', { agent_id: 'ci-bot', ...fields });

  /** Labels exist only through agent filings on the local tracker; file one to get their ids. */
  async function fileLabels(names: string[]): Promise<string[]> {
    const response = await fileForAgent({
      title: `labels ${randomUUID()}`,
      agent_id: 'label-seeder',
      label_names: names,
    });
    assert.equal(response.statusCode, 201, response.body);
    const labels = response.json().labels as { id: string; name: string }[];
    return names.map((n) => labels.find((l) => l.name === n)!.id);
  }

  return { t, admin, call, create, fileForAgent, fileLabels };
}
