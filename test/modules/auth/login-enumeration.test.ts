// A failed sign-in tells no one whether the address has an account (decisions 902, 1050): a wrong
// password and an unknown address get the same answer and headers, write the same audit row, and do the
// same work (the same statements, counters, cache reads, password checks and MACs), with or without a
// device cookie, and when the throttle refuses them. Compared as counts and shapes, never by wall time.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { after, before, describe, it } from '../../helpers/suite.ts';
import { LOGIN_LIMITS } from '../../../src/modules/auth/login-throttle.ts';
import { passwordWork } from '../../../src/platform/crypto/passwords.ts';
import { recordStatements } from '../../helpers/statements.ts';
import { buildTestApp, newClientAddress, signIn, type TestApp } from '../../helpers/test-app.ts';
import { deviceCookie } from './lockout-fixtures.ts';

/** Everything one sign-in attempt did that a caller could see or time, with the address typed masked. */
interface Trace {
  status: number;
  body: string;
  headers: Record<string, unknown>;
  auditRows: number;
  statements: string[];
  calls: string[];
  passwordChecks: number;
  macs: number;
}

/** Records the calls made on an object's methods (they still run as before), with `email` masked. */
function recordCalls(target: object, name: string, calls: string[], mask: () => string[]): () => void {
  const object = target as Record<string, unknown>;
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  for (const key of Object.keys(object)) {
    const original = object[key];
    if (typeof original !== 'function') continue;
    originals.set(key, original as (...args: unknown[]) => unknown);
    object[key] = function (this: unknown, ...args: unknown[]) {
      let shown = JSON.stringify(args.filter((a) => typeof a !== 'function'));
      for (const m of mask()) shown = shown.split(m).join('<email>');
      calls.push(`${name}.${key}(${shown})`);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  return () => {
    for (const [key, original] of originals) object[key] = original;
  };
}

describe('auth: a failed sign-in does not tell which addresses have accounts', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });

  const auditRows = async () =>
    (await t.database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM audit_log`))[0]!.n;

  /** One attempt at `email` from `ip`, traced. */
  async function attempt(email: string, ip: string, cookie?: string): Promise<Trace> {
    const calls: string[] = [];
    const mask = () => [email, ip];
    const restore = [
      recordCalls(t.platform.guardCounters, 'counters', calls, mask),
      recordCalls(t.platform.cache, 'cache', calls, mask),
    ];
    const realHmac = crypto.createHmac;
    let macs = 0;
    crypto.createHmac = ((...args: Parameters<typeof realHmac>) => {
      macs += 1;
      return realHmac(...args);
    }) as typeof realHmac;
    syncBuiltinESMExports();
    const rowsBefore = await auditRows();
    const checksBefore = passwordWork().checked;
    const statements = recordStatements(t.database);
    let response: LightMyRequestResponse;
    try {
      response = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password: 'not-the-password' },
        remoteAddress: ip,
        headers: cookie ? { cookie } : {},
      });
    } finally {
      statements.stop();
      crypto.createHmac = realHmac;
      syncBuiltinESMExports();
      for (const r of restore) r();
    }
    const { date: _date, 'x-request-id': _id, ...headers } = response.headers;
    return {
      status: response.statusCode,
      body: response.body,
      headers,
      auditRows: (await auditRows()) - rowsBefore,
      // Parameters are not in the texts: the same statements, whatever the values.
      statements: statements.texts.map((s) => s.replace(/\s+/g, ' ')),
      calls,
      passwordChecks: passwordWork().checked - checksBefore,
      macs,
    };
  }

  it('answers and works alike for a wrong password and an unknown address', async () => {
    const owner = await signIn(t.app, t.database);
    const known = await attempt(owner.email, newClientAddress());
    const unknown = await attempt('nobody-here@example.com', newClientAddress());
    assert.equal(known.status, 401);
    assert.deepEqual(unknown, known);
  });

  it('with a device cookie of another account, works alike for a known and an unknown address', async () => {
    const owner = await signIn(t.app, t.database);
    const attacker = await signIn(t.app, t.database);
    const own = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: attacker.email, password: attacker.password },
      remoteAddress: newClientAddress(),
    });
    const cookie = deviceCookie(own);
    const known = await attempt(owner.email, newClientAddress(), cookie);
    const unknown = await attempt('nobody-there@example.com', newClientAddress(), cookie);
    assert.equal(known.status, 401);
    assert.ok(known.macs > 0, 'the cookie was checked');
    assert.deepEqual(unknown, known);
  });

  it('refuses alike past the limit of one address at one account', async () => {
    const owner = await signIn(t.app, t.database);
    const traces: Record<string, Trace> = {};
    for (const email of [owner.email, 'nobody-anywhere@example.com']) {
      const ip = newClientAddress();
      for (let i = 0; i < LOGIN_LIMITS.perAccountAndClient; i++) await attempt(email, ip);
      traces[email] = await attempt(email, ip);
    }
    const [known, unknown] = Object.values(traces) as [Trace, Trace];
    assert.equal(known.status, 429);
    // Retry-After counts down the window, which each pair began at its own first attempt.
    const wait = (trace: Trace) => Number(trace.headers['retry-after']);
    assert.ok(wait(known) > 0 && Math.abs(wait(known) - wait(unknown)) <= 1, `${wait(known)} ${wait(unknown)}`);
    const { 'retry-after': _k, ...knownHeaders } = known.headers;
    const { 'retry-after': _u, ...unknownHeaders } = unknown.headers;
    assert.deepEqual({ ...unknown, headers: unknownHeaders }, { ...known, headers: knownHeaders });
  });
});
