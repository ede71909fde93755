// What the framework and Node answer before (or instead of) a route, in the contract's shape
// (decision 096): oversized headers, malformed requests, bad percent-encoding, wrong methods,
// over-long path parameters, refused docs files and requests during shutdown.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes on a fresh connection and reads every answer until the server closes it. */
function exchange(port: number, text: string, socket = net.connect(port, '127.0.0.1')): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    let received = '';
    socket.write(text);
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseAnswers(received)));
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
  });
}

function parseAnswers(text: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    answers.push({
      status: Number(statusLine!.split(' ')[1]),
      headers,
      body: rest.slice(headEnd + 4, headEnd + 4 + length),
    });
    rest = rest.slice(headEnd + 4 + length);
  }
  return answers;
}

function assertRawDetail(answer: RawAnswer | undefined, status: number, detail: string): void {
  assert.ok(answer, 'an answer');
  assert.equal(answer.status, status, answer.body);
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  assert.deepEqual(JSON.parse(answer.body), { detail });
}

describe('framework-level errors', () => {
  let t: TestApp;
  let port: number;
  let admin: TestUser;
  before(async () => {
    t = await buildTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
    admin = await signIn(t.app, t.database, { role: 'admin' });
  });
  after(async () => {
    await t.close();
  });

  describe('refused by Node before routing', () => {
    it('headers over the 16 KiB limit answer 431 {"detail"}, and so does a URL that long', async () => {
      const [big] = await exchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      assertRawDetail(big, 431, 'Request Header Fields Too Large');
      const [long] = await exchange(port, `GET /api/admin/users/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      assertRawDetail(long, 431, 'Request Header Fields Too Large');
    });

    it('a malformed request line or an unknown method token answers 400 {"detail"}', async () => {
      assertRawDetail((await exchange(port, '\u0000\u0001garbage\r\n\r\n'))[0], 400, 'Bad Request');
      assertRawDetail((await exchange(port, 'FROB /healthz HTTP/1.1\r\nHost: x\r\n\r\n'))[0], 400, 'Bad Request');
    });

    it('an HTTP/1.1 request without Host answers 400 {"detail"}', async () => {
      assertRawDetail(
        (await exchange(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'))[0],
        400,
        'Missing Host header',
      );
    });

    it('an Expect other than 100-continue answers 417 {"detail"}', async () => {
      const [answer] = await exchange(
        port,
        'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}',
      );
      assertRawDetail(answer, 417, 'Only Expect: 100-continue is supported');
    });
  });

  describe('refused by the router', () => {
    it('a path that is not valid percent-encoded UTF-8 answers 400 {"detail"}', async () => {
      for (const url of ['/api/admin/users/%FF', '/api/v1/market/prices/%C3%28', '/api/admin/users/%E0%80%AF']) {
        const response = await t.app.inject({
          method: 'GET',
          url,
          headers: { ...admin.headers, 'x-request-id': 'bad-url-1' },
        });
        assertDetail(response, 400, 'The URL is not valid percent-encoded UTF-8');
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
        assert.equal(response.headers['x-request-id'], 'bad-url-1');
      }
    });

    it(
      'a wrong method on a known path answers 405 {"detail":"Method Not Allowed"} ' +
        'with Allow, before authentication',
      async () => {
        const cases: [method: 'PUT' | 'DELETE' | 'OPTIONS' | 'PATCH' | 'POST', url: string, allow: string][] = [
          ['PUT', '/api/auth/login', 'POST'],
          ['DELETE', '/api/admin/users', 'GET, HEAD'],
          ['OPTIONS', '/api/v1/admin/api-keys/3f0e8b8e-6c1a-4d8e-9a57-2f7d1c9b0a11', 'PUT, DELETE'],
          ['POST', '/api/admin/users/someone?x=1', 'GET, HEAD, PATCH, DELETE'],
          ['POST', '/openapi.json', 'GET, HEAD'],
        ];
        for (const [method, url, allow] of cases) {
          const response = await t.app.inject({ method, url });
          assertDetail(response, 405, 'Method Not Allowed');
          assert.equal(response.headers.allow, allow, `${method} ${url}`);
        }
      },
    );

    it('a method Node knows but no route uses (PROPFIND) answers 405 over HTTP too', async () => {
      const [answer] = await exchange(port, 'PROPFIND /api/auth/me HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assertRawDetail(answer, 405, 'Method Not Allowed');
      assert.equal(answer!.headers.allow, 'GET, HEAD');
    });

    it(
      'the OpenAPI document lists these answers: 400/431 everywhere, 422 where a path parameter is, 413/415/422 ' +
        'where a body is, 405 in its description',
      () => {
        const document = t.app.swagger() as unknown as {
          info: { description: string };
          paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
        };
        const statuses = (path: string, method: string) => Object.keys(document.paths[path]![method]!.responses).sort();
        assert.deepEqual(statuses('/api/admin/users/exports/{export_id}', 'get'), [
          '200',
          '400',
          '401',
          '403',
          '404',
          '422',
          '431',
        ]);
        assert.ok(['413', '415', '422'].every((status) => statuses('/api/auth/login', 'post').includes(status)));
        assert.ok(!statuses('/api/auth/me', 'get').includes('415'));
        assert.ok(['400', '431'].every((status) => statuses('/api/auth/me', 'get').includes(status)));
        assert.match(document.info.description, /405 `\{"detail":"Method Not Allowed"\}` with an `Allow` header/);
      },
    );

    it('an unknown path stays 404, whatever the method', async () => {
      for (const method of ['GET', 'PUT', 'OPTIONS'] as const)
        assertDetail(await t.app.inject({ method, url: '/api/admin/nothing' }), 404, 'Not Found');
    });
  });

  describe('path parameters', () => {
    it('one over 100 characters is a 422 string_too_long on its loc; 100 characters reach the route', async () => {
      const over = await t.app.inject({
        method: 'GET',
        url: `/api/admin/users/${'a'.repeat(101)}`,
        headers: admin.headers,
      });
      const issue = assertIssue(over, ['path', 'user_id'], 'string_too_long');
      assert.deepEqual(issue.ctx, { max_length: 100 });
      assertDetail(
        await t.app.inject({ method: 'GET', url: `/api/admin/users/${'a'.repeat(100)}`, headers: admin.headers }),
        404,
        'User not found',
      );
    });

    it("a 10,000-character parameter over HTTP is a 422 too, not the router's 414", async () => {
      const [answer] = await exchange(
        port,
        `GET /api/admin/command-center/tasks/${'t'.repeat(10_000)} HTTP/1.1\r\nHost: ` +
          `x\r\nAuthorization: ${admin.headers.authorization}\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(answer!.status, 422, answer!.body);
      const [issue] = JSON.parse(answer!.body).detail;
      assert.deepEqual([issue.type, issue.loc], ['string_too_long', ['path', 'task_id']]);
    });

    it(
      'a parameter with its own format keeps its own error (uuid_parsing), and the ' +
        'bound is in the OpenAPI document',
      async () => {
        const response = await t.app.inject({
          method: 'DELETE',
          url: `/api/v1/admin/api-keys/${'b'.repeat(300)}`,
          headers: admin.headers,
        });
        assertIssue(response, ['path', 'key_id'], 'uuid_parsing');
        const document = t.app.swagger() as unknown as {
          paths: Record<string, Record<string, { parameters: { name: string; schema: Record<string, unknown> }[] }>>;
        };
        const userId = document.paths['/api/admin/users/{user_id}']!.get!.parameters.find((p) => p.name === 'user_id');
        assert.equal(userId?.schema.maxLength, 100);
      },
    );
  });

  describe('docs files', () => {
    it('traversal, NUL, backslashes and encoded dots under /docs/static answer 404 {"detail"}, never 500', async () => {
      const paths = [
        '/docs/static/%2e%2e/%2e%2e/package.json',
        '/docs/static/%00',
        '/docs/static/..\\..\\package.json',
        '/docs/static/../../package.json',
        '/docs/static/a/../../x',
        '/docs/static/..%5c..%5cpackage.json',
        '/docs/static/.%2e/x',
      ];
      for (const path of paths) {
        const [answer] = await exchange(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        assertRawDetail(answer, 404, 'Not Found');
      }
    });

    it('the docs files themselves are still served', async () => {
      const [answer] = await exchange(
        port,
        'GET /docs/static/index.css HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      assert.equal(answer!.status, 200);
      assert.match(answer!.headers['content-type'] ?? '', /text\/css/);
    });
  });
});

describe('a request arriving during shutdown', () => {
  it('answers 503 {"detail"} with Retry-After and Connection: close', async () => {
    const t = await buildTestApp({ keepData: true });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as net.AddressInfo).port;
    let accepted: net.Socket | undefined;
    t.app.server.once('connection', (serverSide: net.Socket) => (accepted = serverSide));
    const socket = net.connect(port, '127.0.0.1');
    // A request under way (its first line sent) keeps its connection through the shutdown...
    const answers = exchange(port, 'GET /healthz HTTP/1.1\r\n', socket);
    // ...once the server has read that line: a connection it has read nothing from is idle, and closed
    // at shutdown (a fixed wait let a loaded machine get there first: ECONNRESET).
    while ((accepted?.bytesRead ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const closed = t.close();
    while (t.app.server.listening) await new Promise((resolve) => setTimeout(resolve, 5));
    // ...and reaches the app once shutdown has begun.
    socket.write('Host: x\r\n\r\n');
    const [late] = await answers;
    await closed;
    assertRawDetail(late, 503, 'The server is shutting down');
    assert.equal(late!.headers['retry-after'], '1');
    assert.equal(late!.headers.connection, 'close');
  });
});
