import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientKey, isIpOrCidr } from './client-address.ts';

describe('clientKey', () => {
  it('keeps an IPv4 address as it is', () => {
    assert.equal(clientKey('203.0.113.9'), '203.0.113.9');
  });

  it('counts an IPv6 client per /64, however the address is written', () => {
    assert.equal(clientKey('2001:db8:5:6::1'), '2001:db8:5:6::/64');
    assert.equal(clientKey('2001:0db8:0005:0006:ffff:ffff:ffff:ffff'), '2001:db8:5:6::/64');
    assert.equal(clientKey('2001:db8:5:7::1'), '2001:db8:5:7::/64');
  });

  it('reads an IPv4-mapped IPv6 address as its IPv4 address', () => {
    assert.equal(clientKey('::ffff:203.0.113.9'), '203.0.113.9');
  });

  it('answers undefined for no address', () => {
    assert.equal(clientKey(undefined), undefined);
    assert.equal(clientKey(''), undefined);
  });
});

describe('isIpOrCidr', () => {
  it('accepts addresses and prefixes within their length', () => {
    for (const value of ['10.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', '2001:db8::/128'])
      assert.equal(isIpOrCidr(value), true, value);
    for (const value of ['10.0.0.0/33', '::/129', 'host', '10.0.0.0/8/1', '10.0.0.0/x'])
      assert.equal(isIpOrCidr(value), false, value);
  });
});
