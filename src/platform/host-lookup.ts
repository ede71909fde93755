// How host names become addresses for outbound requests whose destination a user chose: injected like
// the clock, so that tests can point names at the addresses they need (a name that resolves to a
// private address) without a DNS server. The real one asks DNS through c-ares (node:dns's Resolver),
// bounded in time (decision 792): the name is the user's, and so is its name server, which may never
// answer. dns.lookup would wait for getaddrinfo's own timeouts on one of libuv's four pool threads, the
// ones scrypt, file reads and compression share, so a few saved names could stall every sign-in.
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address the name resolves to (a literal address resolves to itself). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** The time a name may take to resolve, every try and both address families together. */
export const LOOKUP_TIMEOUT_MS = 3000;

/**
 * A lookup asking DNS directly, A and AAAA at once, that gives up (ETIMEOUT) once `timeoutMs` has passed.
 * `servers` replaces the system's name servers (tests point it at a loopback one).
 */
export function createResolverLookup(options: { timeoutMs: number; servers?: string[] }): HostLookup {
  const { timeoutMs, servers } = options;
  return async (hostname) => {
    const family = isIP(hostname);
    if (family !== 0) return [{ address: hostname, family: family === 6 ? 6 : 4 }];
    // One resolver per lookup, so that ending it at the deadline ends only this lookup's queries.
    const resolver = new Resolver({ timeout: Math.max(1, Math.floor(timeoutMs / 3)), tries: 2 });
    if (servers) resolver.setServers(servers);
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      resolver.cancel();
    }, timeoutMs);
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
      const addresses: ResolvedAddress[] = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
      ];
      if (addresses.length > 0) return addresses;
      if (timedOut) throw Object.assign(new Error(`DNS lookup of ${hostname} timed out`), { code: 'ETIMEOUT' });
      const reason = v4.status === 'rejected' ? v4.reason : v6.status === 'rejected' ? v6.reason : undefined;
      throw reason ?? Object.assign(new Error(`${hostname} has no address`), { code: 'ENODATA' });
    } finally {
      clearTimeout(deadline);
    }
  };
}

export const systemLookup: HostLookup = createResolverLookup({ timeoutMs: LOOKUP_TIMEOUT_MS });
