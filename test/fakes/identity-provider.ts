// A loopback identity provider shaped like Supabase Auth: it publishes its signing keys (one RS256,
// one ES256) at `/auth/v1/.well-known/jwks.json` and issues access tokens with Supabase's claims
// (`iss` = `<url>/auth/v1`, `aud` = `authenticated`, `role` = `authenticated`, `session_id`,
// `email`, `aal`, `amr`, `is_anonymous`). It can also be made to fail like a real one: 5xx, or hang.
// Its tokens carry a top-level `email_verified: true`, which Supabase does not write itself: it is the
// claim an OpenID Connect provider sets, or a Supabase deployment's access token hook adds from the
// user's confirmed address; `user_metadata` (the user's own to write) says so too, and proves nothing.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { createFakeServer } from './loopback-server.ts';

export type IdpAlgorithm = 'RS256' | 'ES256';
export type IdpFailure = { status: number } | 'hang';

export interface IdentityProvider {
  /** The JWKS URL, as JWT_JWKS_URL would name it. */
  jwksUrl: string;
  issuer: string;
  /** How many times the JWKS was fetched. */
  jwksRequests: number;
  /**
   * An access token as the provider would issue it, for the provider's user with that address (one
   * stable `sub` per address); `claims` override or remove (undefined) its claims.
   */
  issue(options?: {
    email?: string;
    alg?: IdpAlgorithm;
    claims?: Record<string, unknown>;
    expiresInSeconds?: number;
    signWithForeignKey?: boolean;
  }): Promise<string>;
  /** Answers for the next JWKS requests, before the keys are served again. */
  failNext(...failures: IdpFailure[]): void;
  close(): Promise<void>;
}

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export async function startIdentityProvider(): Promise<IdentityProvider> {
  const keys: Record<IdpAlgorithm, { kid: string; pair: KeyPair }> = {
    RS256: { kid: `rsa-${randomUUID()}`, pair: await generateKeyPair('RS256', { extractable: true }) },
    ES256: { kid: `ec-${randomUUID()}`, pair: await generateKeyPair('ES256', { extractable: true }) },
  };
  const foreign: Record<IdpAlgorithm, KeyPair> = {
    RS256: await generateKeyPair('RS256'),
    ES256: await generateKeyPair('ES256'),
  };
  const jwks = {
    keys: await Promise.all(
      (Object.keys(keys) as IdpAlgorithm[]).map(async (alg) => ({
        ...(await exportJWK(keys[alg].pair.publicKey)),
        kid: keys[alg].kid,
        alg,
        use: 'sig',
      })),
    ),
  };
  const failures: IdpFailure[] = [];
  // A provider's user has one subject for life, whichever address it holds now.
  const subjects = new Map<string, string>();
  const sockets = new Set<Socket>();

  const server = createFakeServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/auth/v1/.well-known/jwks.json') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"code":404,"msg":"Not Found"}');
      return;
    }
    provider.jwksRequests += 1;
    const failure = failures.shift();
    if (failure === 'hang') return;
    if (failure) {
      response
        .writeHead(failure.status, { 'content-type': 'application/json' })
        .end('{"message":"upstream unavailable"}');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=600' })
      .end(JSON.stringify(jwks));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const base = `http://127.0.0.1:${port}`;

  const provider: IdentityProvider = {
    jwksUrl: `${base}/auth/v1/.well-known/jwks.json`,
    issuer: `${base}/auth/v1`,
    jwksRequests: 0,
    async issue(options = {}) {
      const alg = options.alg ?? 'RS256';
      const now = Math.floor(Date.now() / 1000);
      const email = options.email ?? 'someone@example.com';
      if (!subjects.has(email)) subjects.set(email, randomUUID());
      const claims: JWTPayload = {
        iss: `${base}/auth/v1`,
        aud: 'authenticated',
        sub: subjects.get(email),
        email,
        app_metadata: { provider: 'email', providers: ['email'] },
        user_metadata: { email, email_verified: true, phone_verified: false, sub: subjects.get(email) },
        email_verified: true,
        phone: '',
        role: 'authenticated',
        aal: 'aal1',
        amr: [{ method: 'password', timestamp: now }],
        session_id: randomUUID(),
        is_anonymous: false,
        iat: now,
        exp: now + (options.expiresInSeconds ?? 3600),
      };
      for (const [name, value] of Object.entries(options.claims ?? {})) {
        if (value === undefined) delete claims[name];
        else claims[name] = value;
      }
      const key = options.signWithForeignKey ? foreign[alg].privateKey : keys[alg].pair.privateKey;
      return new SignJWT(claims).setProtectedHeader({ alg, kid: keys[alg].kid, typ: 'JWT' }).sign(key);
    },
    failNext(...next) {
      failures.push(...next);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return provider;
}
