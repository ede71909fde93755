// Credentialed ccxt instances kept between orders (decision 261). Building one costs 7-10 ms of CPU
// (ccxt defines every endpoint of the venue's API in its constructor), more than the rest of a live
// order; one instance per credential is kept while it is used, in a bounded LRU.
//
// The key is the credential's id and its sealed texts as stored: a changed key or secret (an update,
// a re-encryption by rotation) is another version, and the old instance is dropped as the new one is
// made. The caller reads the credential's row before every use, so a deleted or foreign credential
// never reaches the cache; `forget` drops an instance (and the opened secret it holds) at once when
// its credential changes or is deleted in this process. An instance idle past `idleMs` is dropped,
// and one made from an older market list is rebuilt, so markets stay the venue's current ones.
import type { Exchange } from 'ccxt';
import type { Venue } from '../venues.domain.ts';
import type { ClientOptions } from './ccxt-clients.ts';
import type { VenueCredentials } from './venue-gateway.ts';

/** What identifies one version of a credential without opening it. */
export interface CredentialVersion {
  id: string;
  userId: string;
  venue: Venue;
  /** The sealed texts as stored: they change whenever the key material or its encryption does. */
  sealed: readonly (string | null)[];
  /** The plaintext, opened only when an instance is made. */
  open(): VenueCredentials;
}

export interface CredentialClientsDeps {
  /** A fresh credentialed instance with the venue's current markets. */
  client(venue: Venue, options: ClientOptions): Promise<Exchange>;
  /** The venue's shared markets instance: a new one means newer markets. */
  markets(venue: Venue): Promise<Exchange>;
  maxEntries?: number;
  idleMs?: number;
  now?: () => number;
}

interface Entry {
  version: string;
  exchange: Promise<Exchange>;
  markets: Exchange;
  usedAt: number;
  /** Drops the entry once idle, so an opened secret does not outlive its use by more than `idleMs`. */
  timer: NodeJS.Timeout;
}

const DEFAULT_MAX_ENTRIES = 1_000;
const DEFAULT_IDLE_MS = 15 * 60_000;

const versionOf = (credential: CredentialVersion) =>
  `${credential.userId}\u0000${credential.venue}\u0000${credential.sealed.map((s) => s ?? '').join('\u0000')}`;

export function createCredentialClients(deps: CredentialClientsDeps) {
  const maxEntries = deps.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const idleMs = deps.idleMs ?? DEFAULT_IDLE_MS;
  const now = deps.now ?? Date.now;
  const entries = new Map<string, Entry>();

  function drop(id: string): void {
    const entry = entries.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    entries.delete(id);
  }

  function sweep(at: number): void {
    // Map order is least recently used first: stop at the first entry still fresh.
    for (const [id, entry] of entries) {
      if (entries.size <= maxEntries && at - entry.usedAt < idleMs) break;
      drop(id);
    }
  }

  async function build(credential: CredentialVersion): Promise<Exchange> {
    const exchange = await deps.client(credential.venue, { credentials: credential.open() });
    // Amounts and prices stay the venue's decimal strings.
    (exchange as unknown as { number: unknown }).number = String;
    return exchange;
  }

  return {
    /** The credential's instance: the kept one when its version and markets are current, else a new one. */
    async get(credential: CredentialVersion): Promise<Exchange> {
      const at = now();
      const markets = await deps.markets(credential.venue);
      const version = versionOf(credential);
      const kept = entries.get(credential.id);
      if (kept && kept.version === version && kept.markets === markets && at - kept.usedAt < idleMs) {
        kept.usedAt = at;
        kept.timer.refresh();
        entries.delete(credential.id);
        entries.set(credential.id, kept);
        const exchange = await kept.exchange;
        // A -1021 elsewhere measured the venue's clock again: the kept instance signs with that offset too.
        exchange.options.timeDifference = markets.options.timeDifference;
        return exchange;
      }
      drop(credential.id);
      const entry: Entry = {
        version,
        markets,
        exchange: build(credential),
        usedAt: at,
        timer: setTimeout(() => {
          if (entries.get(credential.id) === entry) drop(credential.id);
        }, idleMs).unref(),
      };
      entries.set(credential.id, entry);
      entry.exchange.catch(() => {
        if (entries.get(credential.id) === entry) drop(credential.id);
      });
      sweep(at);
      return entry.exchange;
    },

    /** Drops the credential's instance (it changed or was deleted). */
    forget(credentialId: string): void {
      drop(credentialId);
    },

    /** How many instances are kept (tests, metrics). */
    size(): number {
      sweep(now());
      return entries.size;
    },
  };
}

export type CredentialClients = ReturnType<typeof createCredentialClients>;
