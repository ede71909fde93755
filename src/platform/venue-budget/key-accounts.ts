// Which venue account a key belongs to, for venues that count their limits per account rather than per
// key (Bybit: per UID, a master account and each of its keys sharing one count; docs/decisions/281).
// Only the venue's own answer says it (the adapter asks it once per key); never the user. Kept in the
// shared store, so every instance counts a key under its account from its first call, and in process.
import type { Cache } from '../cache/cache.ts';

/** A key never moves to another account; a month bounds what a deleted key leaves behind. */
const ACCOUNT_TTL_MS = 30 * 86_400_000;
const IN_PROCESS_ENTRIES = 10_000;

export function createKeyAccounts(deps: {
  prefix: string;
  store: <T>(operation: (c: Cache) => Promise<T>) => Promise<{ value: T; scope: 'shared' | 'local' }>;
}) {
  const known = new Map<string, string>();
  const entryKey = (key: string) => `${deps.prefix}:account:${key}`;

  function remember(key: string, account: string): void {
    known.delete(key);
    known.set(key, account);
    if (known.size > IN_PROCESS_ENTRIES) known.delete(known.keys().next().value!);
  }

  return {
    /** The account the venue said the key belongs to; undefined while it has not been asked. */
    async of(key: string): Promise<string | undefined> {
      const local = known.get(key);
      if (local !== undefined) return local;
      const { value } = await deps.store((c) => c.get<string>(entryKey(key)));
      if (typeof value !== 'string') return undefined;
      remember(key, value);
      return value;
    },
    /** The venue's answer: `key` belongs to `account`. */
    async learn(key: string, account: string): Promise<void> {
      remember(key, account);
      await deps.store((c) => c.set(entryKey(key), account, ACCOUNT_TTL_MS));
    },
  };
}
