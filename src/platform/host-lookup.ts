// How host names become addresses for outbound requests whose destination a user chose: injected like
// the clock, so that tests can point names at the addresses they need (a name that resolves to a
// private address) without a DNS server, and the real one is the system resolver.
import { lookup } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address the name resolves to (a literal address resolves to itself). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: HostLookup = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));
