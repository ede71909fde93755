import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isPublicAddress,
  isShownUrl,
  privateAmong,
  shownUrl,
  shownWebhooks,
  urlProblem,
  type ShownWebhook,
  type StoredChannel,
} from './preferences.domain.ts';

describe('webhook destinations', () => {
  it('calls public only the global unicast addresses', () => {
    for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111'])
      assert.equal(isPublicAddress(address), true, address);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '2002:7f00:1::1',
      'not an address',
    ])
      assert.equal(isPublicAddress(address), false, address);
  });

  it('refuses URLs that are not https, carry credentials, or name a private address literally', () => {
    assert.equal(urlProblem('https://hooks.slack.com/services/T/B/x', false), undefined);
    assert.equal(urlProblem('http://hooks.slack.com/x', false), 'only https URLs are allowed');
    assert.equal(urlProblem('ftp://example.com/x', true), 'only https URLs are allowed');
    assert.equal(urlProblem('https://user:pw@example.com/', false), 'a URL with credentials is not allowed');
    assert.equal(urlProblem('nonsense', false), 'not a URL');
    for (const url of [
      'https://127.0.0.1/x',
      'https://[::1]/x',
      'https://[fe80::1]/x',
      'https://169.254.169.254/latest',
    ])
      assert.match(urlProblem(url, false) ?? '', /private, loopback or link-local/, url);
    assert.equal(urlProblem('http://127.0.0.1:8080/x', true), undefined);
  });

  it('finds a private address among those a name resolves to', () => {
    assert.equal(privateAmong([{ address: '93.184.216.34' }, { address: '10.0.0.5' }], false), '10.0.0.5');
    assert.equal(privateAmong([{ address: '93.184.216.34' }], false), undefined);
    assert.equal(privateAmong([{ address: '127.0.0.1' }], true), undefined);
  });

  it('shows a stored URL by its origin only', () => {
    assert.equal(shownUrl('https://discord.com/api/webhooks/1/secret-token'), 'https://discord.com/…');
  });

  it('tells a URL sent back as shown from one to save', () => {
    assert.equal(isShownUrl('https://hooks.slack.com/…'), true);
    assert.equal(isShownUrl('https://hooks.slack.com/services/T/B/x'), false);
    assert.equal(isShownUrl('https://hooks.slack.com/'), false);
    assert.equal(isShownUrl('not a URL'), false);
  });

  it('keeps the saved webhooks of one origin in the order they are shown, and no fewer of them', () => {
    const hook = (id: string, origin: string): StoredChannel => ({
      id,
      type: 'webhook',
      format: 'slack',
      sealed: `sealed ${id}`,
      shown: `${origin}/…`,
    });
    const before: StoredChannel[] = [
      hook('a', 'https://hooks.slack.com'),
      { id: 'email', type: 'email' },
      hook('b', 'https://hooks.slack.com'),
      hook('c', 'https://discord.com'),
    ];
    const slack = 'https://hooks.slack.com/…';
    /** Each index with the id of the webhook it keeps, or why it keeps none. */
    const kept = (found: Map<number, ShownWebhook>) => [...found].map(([i, m]) => [i, 'kept' in m ? m.kept.id : m]);

    // As shown, with other channels between them and another origin first.
    assert.deepEqual(kept(shownWebhooks(['https://discord.com/…', slack, undefined, slack], before)), [
      [0, 'c'],
      [1, 'a'],
      [3, 'b'],
    ]);
    // One of two: either could be meant. A full URL stands for no saved one.
    assert.deepEqual(kept(shownWebhooks([slack, 'https://hooks.slack.com/services/T/B/x'], before)), [
      [0, { ambiguous: 2 }],
    ]);
    // More than are saved: the ones past them are none of the saved.
    assert.deepEqual(kept(shownWebhooks(['https://discord.com/…', 'https://discord.com/…'], before)), [
      [0, 'c'],
      [1, { none: true }],
    ]);
    assert.deepEqual(kept(shownWebhooks(['https://example.com/…'], before)), [[0, { none: true }]]);
  });
});
