// The shape of an address or a network (TRUSTED_PROXIES, allow lists). Kept here so that config
// imports nothing from the platform, which reads config; the platform's HTTP validation uses it too.
import { isIP } from 'node:net';

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
