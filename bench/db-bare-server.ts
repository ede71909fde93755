// The baseline of the authenticated, database-backed benchmark: node:http and pg doing what
// GET /api/exchange/credentials does and nothing more: verify the HS256 bearer token (signature,
// issuer, audience, expiry), check the session and its user (each looked up at most every 2 s, as the
// app's guard does), list the user's credentials with one query and answer them as JSON.
// Usage: node --import tsx bench/db-bare-server.ts <port>   (DATABASE_URL and JWT_SECRET from the environment)
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';

const port = Number(process.argv[2]);
const secret = Buffer.from(process.env.JWT_SECRET!);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const principals = new Map<string, { userId: string; active: boolean; loadedAt: number }>();

function claimsOf(header: string | undefined): { sub: string; sid: string } | undefined {
  if (!header?.startsWith('Bearer ')) return undefined;
  const [head, body, signature] = header.slice(7).split('.');
  if (!head || !body || !signature) return undefined;
  const expected = createHmac('sha256', secret).update(`${head}.${body}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  if (JSON.parse(Buffer.from(head, 'base64url').toString()).alg !== 'HS256') return undefined;
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
  if (claims.iss !== 'trading-platform' || claims.aud !== 'trading-platform-api' || claims.exp * 1000 <= Date.now())
    return undefined;
  return claims;
}

async function principal(sessionId: string, userId: string) {
  const cached = principals.get(sessionId);
  if (cached && cached.userId === userId && Date.now() - cached.loadedAt < 2_000) return cached;
  const { rows } = await pool.query(
    `SELECT u.status, s.revoked_at, s.expires_at FROM device_sessions s JOIN users u ON u.id = s.user_id
     WHERE s.id = $1 AND u.id = $2 LIMIT 1`,
    [sessionId, userId],
  );
  const row = rows[0];
  const found = {
    userId,
    active: !!row && row.status === 'active' && row.revoked_at === null && row.expires_at > new Date(),
    loadedAt: Date.now(),
  };
  principals.set(sessionId, found);
  return found;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

createServer(async (request, response) => {
  try {
    const claims = claimsOf(request.headers.authorization);
    if (!claims || !(await principal(claims.sid, claims.sub)).active)
      return send(response, 401, { detail: 'Not authenticated' });
    const { rows } = await pool.query(
      'SELECT * FROM exchange_credentials WHERE user_id = $1 ORDER BY created_at DESC, id ASC',
      [claims.sub],
    );
    const credentials = rows.map((row) => ({
      id: row.id,
      user_id: row.user_id,
      exchange_name: row.exchange_name,
      credential_name: row.credential_name,
      permissions: row.permissions,
      ip_whitelist: row.ip_whitelist,
      exchange_metadata: row.exchange_metadata,
      is_active: row.is_active,
      last_used: iso(row.last_used),
      last_validation: iso(row.last_validation),
      validation_status: row.validation_status,
      validation_error: row.validation_error,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    }));
    send(response, 200, { credentials, total_count: credentials.length });
  } catch {
    send(response, 500, { detail: 'Internal Server Error' });
  }
}).listen(port, '127.0.0.1');
