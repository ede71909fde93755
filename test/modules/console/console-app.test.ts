// The console's pages and files as the service serves them: the shell at every /console path with
// its Content-Security-Policy, hashed assets cached for good, and links from /docs.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { createConsoleFiles } from '../../../src/modules/console/console-files.ts';
import { consoleAppRoutes } from '../../../src/modules/console/routes/console-app.routes.ts';
import { registerErrorHandling } from '../../../src/platform/http/error-handler.ts';
import { buildTestApp, type TestApp } from '../../helpers/test-app.ts';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src " +
  "'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

describe('the console pages', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(async () => {
    await t.close();
  });
  const get = (url: string) => t.app.inject({ method: 'GET', url });
  const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="\/console\/assets\/([^"]+)"/g)].map((m) => m[1]!);

  it(
    'answers the app shell at /console with a strict CSP, ' + 'never cached stale, naming a hashed script and style',
    async () => {
      const response = await get('/console');
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(response.headers['content-security-policy'], CSP);
      assert.equal(response.headers['cache-control'], 'no-cache');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['x-frame-options'], 'DENY');
      const assets = assetsOf(response.body);
      assert.equal(assets.length, 2, response.body);
      assert.match(assets[0]!, /^main-[A-Z0-9]{8}\.css$/);
      assert.match(assets[1]!, /^main-[A-Z0-9]{8}\.js$/);
      // No inline script or style: everything comes from files.
      assert.doesNotMatch(response.body, /<script>|<script [^>]*>[^<]|<style|style=/);
    },
  );

  it('answers the same shell for any deep link below /console, so a reload works', async () => {
    const shell = (await get('/console')).body;
    for (const url of [
      '/console/',
      '/console/markets/BTCUSDT',
      '/console/account/exchanges',
      '/console/admin/users?page=2',
      '/console/no/such/page',
    ]) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.body, shell, url);
      assert.equal(response.headers['content-security-policy'], CSP, url);
    }
  });

  it("leaves the console's operations to the API: a wrong method there is 405, not the shell", async () => {
    const response = await get('/api/console/session/login');
    assert.equal(response.statusCode, 405);
    assert.deepEqual(response.json(), { detail: 'Method Not Allowed' });
  });

  it('serves each hashed asset with its type, cached for a year as immutable', async () => {
    const [css, js] = assetsOf((await get('/console')).body);
    const script = await get(`/console/assets/${js}`);
    assert.equal(script.statusCode, 200);
    assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(script.headers['content-security-policy'], CSP);
    assert.ok(script.body.length > 1000);
    const style = await get(`/console/assets/${css}`);
    assert.equal(style.headers['content-type'], 'text/css; charset=utf-8');
    assert.match(style.body, /prefers-color-scheme|data-theme/);
  });

  it(
    'answers 404 in the contract shape for an unknown asset, ' + 'a path out of the folder or a type it does not serve',
    async () => {
      for (const url of [
        '/console/assets/main-XXXXXXXX.js',
        '/console/assets/..%2F..%2Fpackage.json',
        '/console/assets/index.html',
        '/console/assets/.hidden.js',
      ]) {
        const response = await get(url);
        assert.equal(response.statusCode, 404, url);
        assert.deepEqual(response.json(), { detail: 'Not Found' }, url);
      }
    },
  );

  it('is linked from the API document that /docs shows', async () => {
    const document = (await get('/openapi.json')).json();
    assert.match(document.info.description, /\[\/console\]\(\/console\)/);
    assert.ok(document.paths['/api/console/session/login'].post, 'the session routes are documented');
    assert.equal(document.paths['/console'], undefined, 'the pages are not API operations');
  });

  it('answers 503 naming the build when the console has not been built', async () => {
    const app = Fastify();
    registerErrorHandling(app, { filesUnder: '/nowhere/' });
    await app.register(
      consoleAppRoutes({ files: createConsoleFiles(mkdtempSync(path.join(tmpdir(), 'no-console-'))) }),
    );
    const response = await app.inject({ method: 'GET', url: '/console/markets' });
    assert.equal(response.statusCode, 503);
    assert.deepEqual(response.json(), { detail: 'The console is not built: run npm run build' });
    await app.close();
  });
});
