// The key a client address is counted under by the throttles. An IPv6 client controls at least a
// /64 (one customer's prefix), so its limits are kept per /64, not per address; an IPv4-mapped
// address counts as the IPv4 address it carries.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** An IPv4 or IPv6 address, or either with a `/prefix` within its length. */
export function isIpOrCidr(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  if (rest.length > 0 || !address) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (version === 4 ? 32 : 128);
}

export function clientKey(ip: string | undefined): string | undefined {
  if (!ip || !ipaddr.isValid(ip)) return ip || undefined;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
