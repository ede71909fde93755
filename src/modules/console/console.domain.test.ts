import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  clearedRefreshCookie,
  CONSOLE_CSP,
  contentTypeOf,
  readRefreshCookie,
  refreshCookie,
  sameOriginRequest,
} from './console.domain.ts';

describe('console rules', () => {
  it('forbids inline script, foreign connections, plugins, <base> and framing', () => {
    assert.match(CONSOLE_CSP, /script-src 'self'(;|$)/);
    assert.match(CONSOLE_CSP, /connect-src 'self'(;|$)/);
    assert.match(CONSOLE_CSP, /object-src 'none'/);
    assert.match(CONSOLE_CSP, /base-uri 'none'/);
    assert.match(CONSOLE_CSP, /frame-ancestors 'none'/);
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/);
  });

  it('writes the refresh cookie HttpOnly, SameSite=Strict, on the session path only', () => {
    assert.equal(
      refreshCookie('abc', { maxAgeSeconds: 60, secure: false }),
      'tp_console_refresh=abc; Path=/api/console/session; Max-Age=60; HttpOnly; SameSite=Strict',
    );
    assert.equal(refreshCookie('abc', { maxAgeSeconds: 60, secure: true }).endsWith('; Secure'), true);
    assert.equal(
      clearedRefreshCookie(false),
      'tp_console_refresh=; Path=/api/console/session; Max-Age=0; HttpOnly; SameSite=Strict',
    );
  });

  it('reads the refresh cookie among others, and nothing from an empty or absent one', () => {
    assert.equal(readRefreshCookie('a=1; tp_console_refresh=xyz; b=2'), 'xyz');
    assert.equal(readRefreshCookie('tp_console_refresh='), undefined);
    assert.equal(readRefreshCookie('other=1'), undefined);
    assert.equal(readRefreshCookie(undefined), undefined);
    assert.equal(readRefreshCookie(`tp_console_refresh=${'x'.repeat(513)}`), undefined);
  });

  it('lets the cookie routes be called from this origin only (or without an Origin)', () => {
    assert.equal(sameOriginRequest({ host: 'a.example:8000' }), true);
    assert.equal(sameOriginRequest({ host: 'a.example:8000', origin: 'http://a.example:8000' }), true);
    assert.equal(sameOriginRequest({ host: 'a.example:8000', origin: 'http://evil.example' }), false);
    assert.equal(sameOriginRequest({ host: 'a.example:8000', origin: 'null' }), false);
    assert.equal(sameOriginRequest({ host: 'localhost:80', origin: 'http://localhost' }), true);
    assert.equal(sameOriginRequest({ origin: 'http://localhost' }), false);
  });

  it('knows the types of the files the build writes and no others', () => {
    assert.equal(contentTypeOf('main-ABC.js'), 'text/javascript; charset=utf-8');
    assert.equal(contentTypeOf('main-ABC.css'), 'text/css; charset=utf-8');
    assert.equal(contentTypeOf('x.html'), undefined);
  });
});
