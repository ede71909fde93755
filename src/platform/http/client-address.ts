// The key a client address is counted under by the throttles. An IPv6 client controls at least a
// /64 (one customer's prefix), so its limits are kept per /64, not per address; an IPv4-mapped
// address counts as the IPv4 address it carries.
import ipaddr from 'ipaddr.js';

export { isIpOrCidr } from '../../config/ip-ranges.ts';

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
