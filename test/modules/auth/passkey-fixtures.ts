// Set-up shared by the passkey tests: the app on a fixed clock with its default WebAuthn settings
// (RP ID `localhost`, origin http://localhost:8000), a software authenticator answering as a browser
// would, and users who registered a passkey through the API.
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { fixedClock } from '../../../src/platform/clock.ts';
import {
  createSoftwareAuthenticator,
  type CreationOptions,
  type Lies,
  type RequestOptions,
  type SoftwarePasskey,
} from '../../helpers/software-authenticator.ts';
import { buildTestApp, newClientAddress, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

export const ORIGIN = 'http://localhost:8000';
export const RP_ID = 'localhost';

export type PasskeyApp = Awaited<ReturnType<typeof startPasskeyApp>>;
export type PasskeyUser = TestUser & { passkey: SoftwarePasskey; passkeyId: string };

export const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { auth_time: number; amr: string[] };

export async function startPasskeyApp(clock: ReturnType<typeof fixedClock>, env: Record<string, string> = {}) {
  const t: TestApp = await buildTestApp({ clock, env });
  const authenticator = createSoftwareAuthenticator({ origin: ORIGIN, rpId: RP_ID });
  // A client address of its own for each request unless one is named: the sign-in and options limits
  // count per address, and only the tests of those limits mean to reach them.
  const post = (url: string, payload: unknown, headers: Record<string, string> = {}, remoteAddress?: string) =>
    t.app.inject({
      method: 'POST',
      url,
      payload: payload as object,
      headers,
      remoteAddress: remoteAddress ?? newClientAddress(),
    });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  /** The options of a ceremony, asserted 200. */
  async function options<T extends object>(
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
    remoteAddress?: string,
  ): Promise<{ challenge_token: string; options: T }> {
    const response = await post('/api/auth/passkeys/options', body, headers, remoteAddress);
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  }

  const verify = (body: Record<string, unknown>, headers: Record<string, string> = {}, remoteAddress?: string) =>
    post('/api/auth/passkeys/verify', body, headers, remoteAddress);

  /** Registers a new passkey for the signed-in user. */
  async function register(user: TestUser, name?: string): Promise<{ passkey: SoftwarePasskey; id: string }> {
    // The password is read only while the account has no second factor (decision 681).
    const started = await options<CreationOptions>({ purpose: 'register', password: user.password }, user.headers);
    const { passkey, response } = authenticator.create(started.options);
    const done = await verify({ challenge_token: started.challenge_token, response, name }, user.headers);
    assert.equal(done.statusCode, 201, done.body);
    return { passkey, id: done.json<{ id: string }>().id };
  }

  /**
   * A signed-in user with one passkey, holding a pair refreshed after it: the registration marked the
   * session with a second factor, which tokens carry from their next refresh.
   */
  async function passkeyUser(): Promise<PasskeyUser> {
    const user = await signIn(t.app, t.database);
    const { passkey, id } = await register(user);
    const refreshed = await post('/api/auth/refresh', { refresh_token: user.refreshToken });
    assert.equal(refreshed.statusCode, 200, refreshed.body);
    const pair = refreshed.json<{ access_token: string; refresh_token: string }>();
    const fresh = { token: pair.access_token, refreshToken: pair.refresh_token, headers: bearer(pair.access_token) };
    return { ...user, ...fresh, passkey, passkeyId: id };
  }

  /** A full assertion ceremony for `purpose`: options, then the authenticator's answer (lying if told), then verify. */
  async function ceremony(
    passkey: SoftwarePasskey,
    body: Record<string, unknown>,
    options_: { headers?: Record<string, string>; lies?: Lies; remoteAddress?: string } = {},
  ) {
    const started = await options<RequestOptions>(body, options_.headers, options_.remoteAddress);
    const response = authenticator.assert(passkey, started.options, options_.lies);
    const answer = await verify(
      { challenge_token: started.challenge_token, response },
      options_.headers,
      options_.remoteAddress,
    );
    return { started, response, answer };
  }

  /** The `mfa_token` of a password sign-in, asserted. */
  async function mfaToken(user: TestUser): Promise<{ token: string; methods: string[] }> {
    const login = await post('/api/auth/login', { email: user.email, password: user.password });
    assert.equal(login.statusCode, 200, login.body);
    const answer = login.json<{ mfa_required?: boolean; mfa_token: string; methods: string[] }>();
    assert.equal(answer.mfa_required, true, login.body);
    return { token: answer.mfa_token, methods: answer.methods };
  }

  /** The audit rows of a user's passkey ceremonies, oldest first. */
  async function auditOf(userId: string): Promise<{ action: string; details: Record<string, unknown> }[]> {
    // No operation lists the audit trail of sign-ins; the table is read directly.
    return t.database.rows(
      sql`SELECT action, details FROM audit_log
        WHERE subject_user_id = ${userId} AND action LIKE 'auth.passkey%' ORDER BY created_at, id`,
    );
  }

  return { t, authenticator, post, bearer, options, verify, register, passkeyUser, ceremony, mfaToken, auditOf };
}
