// What a credentialed ccxt instance does around its private calls, for the venues whose keys need more
// than a signature (docs/decisions/280, 281):
// - Kraken: a key's nonces must reach Kraken in increasing order, while ccxt takes each from its own
//   instance's clock. Each private call takes the key's turn in the venue budget (one call at a time
//   across instances) and its nonce inside it, from the budget's sequence; ccxt's own throttle is waited
//   for before the turn, so that a turn is held only for the call itself.
// - Bybit: limits are per UID, which no key tells by itself. Before a key's first private call Bybit is
//   asked which UID it belongs to (`GET /v5/user/query-api`, its `userID`), and the budget counts the
//   key's calls under that UID from then on, on every instance.
import type { Exchange } from 'ccxt';
import type { VenueBudget } from '../../../platform/venue-budget/venue-budget.ts';
import type { Venue } from '../venues.domain.ts';
import { signingTimeLeftMs } from './signing-deadline.ts';

type Fetch2 = (
  path: string,
  api?: unknown,
  method?: string,
  params?: Record<string, unknown>,
  headers?: unknown,
  body?: unknown,
  config?: Record<string, unknown>,
) => Promise<unknown>;

/** The parts of ccxt's base class this file hooks (ccxt 4.5: fetch2 throttles, signs with nonce(), then fetches). */
interface CcxtInternals {
  fetch2: Fetch2;
  nonce(): number;
  throttle(cost?: number): Promise<unknown>;
  calculateRateLimiterCost(
    api: unknown,
    method: string,
    path: string,
    params: Record<string, unknown>,
    config: Record<string, unknown>,
  ): number;
  enableRateLimit: boolean;
  timeout: number;
  privateGetV5UserQueryApi(params?: object): Promise<{ result?: { userID?: unknown } } | undefined>;
}

export interface KeyCallDeps {
  budget: VenueBudget;
  /** The digest the key is counted under (never the key). */
  key: string;
  /** Lookups of a key's account under way in this process, so that concurrent first calls ask once. */
  learning: Map<string, Promise<void>>;
  /** Whether an error is Bybit refusing the key (ccxt's AuthenticationError): the call fails as it would have anyway. */
  keyRefused(error: unknown): boolean;
}

const BYBIT_KEY_INFO = 'v5/user/query-api';

/** Hooks the instance's private calls where its venue needs it; other venues' instances are left alone. */
export function holdKeyCalls(exchange: Exchange, venue: Venue, deps: KeyCallDeps): void {
  if (venue === 'kraken') takeTurns(exchange as unknown as CcxtInternals, deps);
  if (venue === 'bybit') countPerUid(exchange as unknown as CcxtInternals, deps);
}

function takeTurns(client: CcxtInternals, deps: KeyCallDeps): void {
  const throttle = client.throttle.bind(client);
  const send = client.fetch2.bind(client);
  let nonce = 0;
  // Read by ccxt's sign() inside fetch2, which runs in the key's turn only.
  client.nonce = () => nonce;
  client.throttle = () => Promise.resolve();
  client.fetch2 = async (path, api = 'public', method = 'GET', params = {}, headers, body, config = {}) => {
    if (client.enableRateLimit) await throttle(client.calculateRateLimiterCost(api, method, path, params, config));
    if (api !== 'private') return send(path, api, method, params, headers, body, config);
    // A send waits for the turn no longer than it may still be signed (decision 1350).
    return deps.budget.inTurn(
      deps.key,
      client.timeout,
      (sequence) => {
        nonce = sequence;
        return send(path, api, method, params, headers, body, config);
      },
      signingTimeLeftMs(),
    );
  };
}

function countPerUid(client: CcxtInternals, deps: KeyCallDeps): void {
  const send = client.fetch2.bind(client);

  async function ask(): Promise<void> {
    try {
      const answer = await client.privateGetV5UserQueryApi();
      const uid = answer?.result?.userID;
      if ((typeof uid === 'number' || typeof uid === 'string') && /^[1-9][0-9]*$/.test(String(uid)))
        await deps.budget.learnKeyAccount(deps.key, String(uid));
    } catch (error) {
      if (deps.keyRefused(error)) throw error;
      // Bybit did not say now: this call is counted under the key alone, and the next one asks again.
    }
  }

  async function learnt(): Promise<void> {
    if ((await deps.budget.keyAccount(deps.key)) !== undefined) return;
    let pending = deps.learning.get(deps.key);
    if (!pending) {
      pending = ask().finally(() => deps.learning.delete(deps.key));
      deps.learning.set(deps.key, pending);
    }
    await pending;
  }

  client.fetch2 = async (path, api = 'public', method = 'GET', params = {}, headers, body, config = {}) => {
    if (api === 'private' && path !== BYBIT_KEY_INFO) await learnt();
    return send(path, api, method, params, headers, body, config);
  };
}
