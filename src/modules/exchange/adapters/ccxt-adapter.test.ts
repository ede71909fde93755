// The ccxt adapter's pure parts: error translation (with ccxt's real error classes) and URL rewriting.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as ccxt from 'ccxt';
import type { CcxtClientSettings } from './ccxt-clients.ts';
import { rewriteUrls, urlRewriter } from './ccxt-urls.ts';
import { classifyAuthRefusal, stripUrls, toVenueError, venueMessage, type CcxtErrorClasses } from './ccxt-errors.ts';

const classes = ccxt as unknown as CcxtErrorClasses;

describe('toVenueError', () => {
  it('maps each ccxt class to one failure, status and error_type', () => {
    const cases: [Error, string, number, string][] = [
      [
        new ccxt.AuthenticationError('binance {"code":-2015,"msg":"Invalid API-key, IP, or permissions for action."}'),
        'invalid_key',
        400,
        'auth',
      ],
      [
        new ccxt.PermissionDenied(
          'okx {"code":"50110","msg":"Your IP 1.2.3.4 is not included in your API key\'s IP whitelist."}',
        ),
        'ip_not_whitelisted',
        403,
        'auth',
      ],
      [
        new ccxt.PermissionDenied('kucoin {"code":"400007","msg":"Access denied, require more permission."}'),
        'missing_permission',
        403,
        'auth',
      ],
      [
        new ccxt.RateLimitExceeded('binance 429 Too Many Requests {"code":-1003,"msg":"Too many requests."}'),
        'rate_limited',
        429,
        'rate_limit',
      ],
      [
        new ccxt.DDoSProtection(
          'binance 418 I\'m a teapot {"code":-1003,"msg":"Way too much request weight used; ' +
            'IP banned until 1700000000000."}',
        ),
        'ip_banned',
        503,
        'rate_limit',
      ],
      [
        new ccxt.InvalidNonce(
          'binance {"code":-1021,"msg":"Timestamp for this request is outside of the recvWindow."}',
        ),
        'clock_skew',
        502,
        'exchange',
      ],
      [
        new ccxt.RequestTimeout(
          'binance GET https://api.binance.com/api/v3/account?signature=abc request timed out (10000 ms)',
        ),
        'timeout',
        504,
        'network',
      ],
      [new ccxt.OnMaintenance('binance system maintenance'), 'maintenance', 503, 'network'],
      [
        new ccxt.NetworkError(
          'kraken GET http://127.0.0.1:1/0/public/Time fetch failed: connect ECONNREFUSED 127.0.0.1:1',
        ),
        'unreachable',
        502,
        'network',
      ],
      [new ccxt.BadSymbol('binance does not have market symbol FOO/BAR'), 'bad_symbol', 404, 'exchange'],
      [new ccxt.NotSupported('gemini fetchMyTrades() is not supported yet'), 'not_supported', 400, 'exchange'],
      [
        new ccxt.ExchangeError('binance {"code":-1000,"msg":"An unknown error occurred."}'),
        'rejected',
        502,
        'exchange',
      ],
      [new Error('anything else'), 'rejected', 502, 'exchange'],
    ];
    for (const [error, failure, status, type] of cases) {
      const mapped = toVenueError(classes, error.message.split(' ')[0]!, error, undefined);
      assert.deepEqual([mapped.failure, mapped.status, mapped.errorType], [failure, status, type], error.message);
    }
  });

  it('carries Retry-After from the venue, or a default back-off, on rate limits', () => {
    const limited = toVenueError(classes, 'binance', new ccxt.RateLimitExceeded('binance 429 Too Many Requests'), {
      'Retry-After': '42',
    });
    assert.equal(limited.headers['retry-after'], '42');
    assert.equal(limited.retryAfterSeconds, 42);
    assert.equal(toVenueError(classes, 'binance', new ccxt.DDoSProtection('binance 429'), {}).retryAfterSeconds, 10);
  });

  it('never repeats a URL (signatures, internal hosts) in its detail', () => {
    const mapped = toVenueError(
      classes,
      'binance',
      new ccxt.RequestTimeout(
        'binance GET https://api.binance.com/api/v3/account?timestamp=1&signature=deadbeef request timed out',
      ),
      undefined,
    );
    assert.ok(!String(mapped.detail).includes('signature'));
    const cause = mapped.cause as Error;
    assert.equal(cause.name, 'RequestTimeout');
    assert.ok(!cause.message.includes('signature') && !String(cause.stack).includes('signature'));
    assert.equal(
      stripUrls('binance GET http://127.0.0.1:9/api?x=1 fetch failed: ECONNREFUSED'),
      'binance fetch failed: ECONNREFUSED',
    );
    const refused = toVenueError(
      classes,
      'kraken',
      new ccxt.NetworkError(
        'kraken GET http://10.0.0.5:8443/0/public/Time fetch failed: connect ECONNREFUSED 10.0.0.5:8443',
      ),
      undefined,
    );
    assert.equal(refused.detail, 'kraken could not be reached (ECONNREFUSED)');
  });
});

describe("toVenueError: which of a venue's unavailable answers are outages (decision 405)", () => {
  it('its 502/503, its maintenance and its own "unavailable" codes are; a 4xx ccxt files alike is not', () => {
    const outage = (error: Error) => toVenueError(classes, error.message.split(' ')[0]!, error, undefined).outage;
    const url = 'https://api.kraken.com/0/private/Balance?nonce=1&signature=deadbeef';
    assert.deepEqual(outage(new ccxt.ExchangeNotAvailable(`kraken POST ${url} 503 Service Unavailable `)), {
      dependency: 'kraken',
      failure: 'venue_5xx',
      code: 'HTTP 503',
    });
    assert.deepEqual(outage(new ccxt.ExchangeNotAvailable(`binance GET ${url} 502 Bad Gateway <html>`)), {
      dependency: 'binance',
      failure: 'venue_5xx',
      code: 'HTTP 502',
    });
    assert.deepEqual(outage(new ccxt.ExchangeNotAvailable('kraken {"error":["EService:Unavailable"]}')), {
      dependency: 'kraken',
      failure: 'maintenance',
    });
    assert.deepEqual(outage(new ccxt.OnMaintenance('okx {"code":"50001","msg":"Service temporarily unavailable"}')), {
      dependency: 'okx',
      failure: 'maintenance',
    });
    for (const status of ['400', '403', '404', '451', '500'])
      assert.equal(
        outage(new ccxt.ExchangeNotAvailable(`binance GET ${url} ${status} Whatever {}`)),
        undefined,
        status,
      );
  });
});

describe('venueMessage and classifyAuthRefusal', () => {
  it("reads the venue's code and words from ccxt's message", () => {
    assert.deepEqual(
      venueMessage('binance', 'binance {"code":-2015,"msg":"Invalid API-key, IP, or permissions for action."}'),
      {
        code: -2015,
        text: 'Invalid API-key, IP, or permissions for action.',
      },
    );
    assert.deepEqual(
      venueMessage(
        'bybit',
        'bybit {"retCode":10010,"retMsg":"Unmatched IP, please check your API key\'s bound IP addresses."}',
      ),
      {
        code: 10010,
        text: "Unmatched IP, please check your API key's bound IP addresses.",
      },
    );
  });

  it('tells IP whitelisting from permissions from bad keys where the venue says which', () => {
    assert.equal(
      classifyAuthRefusal(
        { code: 10010, text: "Unmatched IP, please check your API key's bound IP addresses." },
        false,
      ),
      'ip_not_whitelisted',
    );
    assert.equal(
      classifyAuthRefusal({ code: null, text: 'IP whitelist does not include 1.2.3.4' }, false),
      'ip_not_whitelisted',
    );
    assert.equal(classifyAuthRefusal({ code: null, text: 'Insufficient permission' }, false), 'missing_permission');
    assert.equal(
      classifyAuthRefusal(
        { code: -2015, text: 'Invalid API-key, IP, or permissions for action, request ip: 1.2.3.4' },
        false,
      ),
      'invalid_key',
    );
    assert.equal(classifyAuthRefusal({ code: null, text: 'Invalid key' }, false), 'invalid_key');
  });
});

describe('URL rewriting', () => {
  const settings: CcxtClientSettings = {
    binanceApiUrl: 'http://127.0.0.1:5001',
    binanceUsApiUrl: 'https://api.binance.us',
    apiUrls: { okx: 'http://127.0.0.1:5002/proxy', kraken: 'http://127.0.0.1:5003' },
    rateLimit: true,
    timeoutMs: 10_000,
  };

  it('replaces the Binance host in every nested string and leaves other hosts alone', () => {
    const api = {
      public: 'https://api.binance.com/api/v3',
      sapi: { v1: 'https://api.binance.com/sapi/v1' },
      fapi: 'https://fapi.binance.com/fapi/v1',
    };
    rewriteUrls(api, urlRewriter('binance', undefined, settings)!);
    assert.deepEqual(api, {
      public: 'http://127.0.0.1:5001/api/v3',
      sapi: { v1: 'http://127.0.0.1:5001/sapi/v1' },
      fapi: 'https://fapi.binance.com/fapi/v1',
    });
  });

  it('does nothing when a Binance URL is the default', () => {
    assert.equal(urlRewriter('binanceus', undefined, settings), undefined);
    assert.equal(urlRewriter('gemini', undefined, settings), undefined);
  });

  it('moves other venues to the configured origin, resolving {hostname} and keeping the path', () => {
    assert.equal(urlRewriter('okx', 'www.okx.com', settings)!('https://{hostname}'), 'http://127.0.0.1:5002/proxy');
    assert.equal(
      urlRewriter('kraken', undefined, settings)!('https://api.kraken.com/0/public'),
      'http://127.0.0.1:5003/0/public',
    );
  });
});
