// Reads what users write to the bot (PROTOCOLS B13) by long polling `getUpdates`: one request waits up to
// `pollTimeoutS` for messages, and the next one's `offset` confirms those read, so Telegram forgets them.
// One reader per deployment (decision 860): the loop runs while it holds the deployment's lock, for a term
// at a time, and asks again after it; before each poll it checks the lock's session is still there, and
// stops as soon as it is not (decision 922). Failures wait and poll again: a 429 its `retry_after`, a 409
// Conflict from another reader, a 5xx, a timeout or a refused connection the common backoff curve; any
// other answer (a revoked token: 401) the curve's longest wait. A webhook set on the bot makes every poll
// a 409 until the operator removes it (we do not): logged once as an error, polled every 5 minutes
// (decision 861). The token is never in a log line.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { backoffDelay } from '../../../platform/backoff.ts';

/** The part of an update this server reads: a message's text and the chat it was written in. */
export interface TelegramUpdate {
  update_id: number;
  message?: { chat?: { id?: number | string; type?: string }; text?: string };
}

export interface TelegramUpdates {
  /** Starts reading (once); the loop runs until `stop`. */
  start(): void;
  /** Stops reading, cutting the poll in flight; resolves once the loop has ended. */
  stop(): Promise<void>;
}

const RETRY = { baseMs: 1_000, maxMs: 300_000, jitter: [0.5, 1] } as const;
/** How long a reader waits between polls while a webhook is set on the bot. */
export const WEBHOOK_SET_WAIT_MS = 300_000;
/** Telegram's 409 while a webhook is set: "Conflict: can't use getUpdates method while webhook is active". */
const WEBHOOK_ACTIVE = /webhook is active/i;
/** A 429's `retry_after` is honoured within these bounds. */
const RETRY_AFTER_MS = { min: 1_000, max: 3_600_000 } as const;

export function createTelegramUpdates(options: {
  token: string;
  apiUrl: string;
  fetch: typeof fetch;
  /** How long one getUpdates waits for a message (Telegram allows up to 50 s). */
  pollTimeoutS: number;
  /** Added to the poll's timeout to bound the HTTP request: a poll that outlives both is cut and retried. */
  httpMarginMs?: number;
  /**
   * Handles one update, with the number of the getUpdates answer it came in (one answer's updates share
   * it) and the reader's stop signal; a throw leaves it unconfirmed, and it is read again after a wait.
   */
  onUpdate(update: TelegramUpdate, poll: number, signal: AbortSignal): Promise<void>;
  /**
   * Runs the work holding the deployment's lock; false at once when another instance holds it. The work
   * is handed `stillHeld`, which throws once the lock's session is gone.
   */
  whileHolding(work: (stillHeld: () => Promise<void>) => Promise<void>): Promise<boolean>;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** How long one term of holding the lock lasts before it is given up and asked for again. */
  termMs?: number;
  /** How long an instance that did not get the lock waits before asking again. */
  standbyMs?: number;
  /** Waits `ms` or until the signal aborts (tests record the waits instead). */
  pause?: (ms: number, signal: AbortSignal) => Promise<void>;
}): TelegramUpdates {
  const endpoint = `${options.apiUrl.replace(/\/+$/, '')}/bot${options.token}/getUpdates`;
  const httpBoundMs = options.pollTimeoutS * 1000 + (options.httpMarginMs ?? 10_000);
  const termMs = options.termMs ?? 600_000;
  const standbyMs = options.standbyMs ?? 30_000;
  const pause =
    options.pause ?? ((ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined));
  const { logger } = options;
  let stopping: AbortController | undefined;
  let loop: Promise<void> | undefined;
  /** The next update wanted: everything before it is confirmed by asking from it. */
  let offset = 0;
  let failures = 0;
  /** The lock's session was found gone during this term (logged once). */
  let lockLost = false;
  /** getUpdates answers read so far. */
  let polls = 0;
  /** A webhook was found set and logged: not logged again until a poll is answered. */
  let webhookLogged = false;

  const retryWait = () => backoffDelay(failures++, RETRY);

  /** One getUpdates and its updates handled; answers how long to wait before the next (0: at once). */
  async function pollOnce(signal: AbortSignal): Promise<number> {
    let status: number;
    let body: { ok?: boolean; result?: unknown; description?: string; parameters?: { retry_after?: number } };
    try {
      const response = await options.fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ offset, timeout: options.pollTimeoutS, allowed_updates: ['message'] }),
        signal: AbortSignal.any([AbortSignal.timeout(httpBoundMs), signal]),
      });
      status = response.status;
      body = (await response.json().catch(() => ({}))) as typeof body;
    } catch (error) {
      if (signal.aborted) return 0;
      logger.warn({ reason: (error as Error).name }, 'telegram getUpdates failed; polling again after a wait');
      return retryWait();
    }
    if (status === 200 && body.ok && Array.isArray(body.result)) {
      failures = 0;
      webhookLogged = false;
      const poll = ++polls;
      for (const update of body.result as TelegramUpdate[]) {
        if (!Number.isSafeInteger(update?.update_id) || update.update_id < offset) continue;
        try {
          await options.onUpdate(update, poll, signal);
        } catch (error) {
          logger.error({ err: error }, 'a telegram update could not be handled; it is read again after a wait');
          return retryWait();
        }
        offset = update.update_id + 1;
      }
      return 0;
    }
    const reason = `telegram getUpdates answered HTTP ${status}: ${String(body.description ?? 'no description').slice(0, 200)}`;
    if (status === 429) {
      const seconds = Number(body.parameters?.retry_after);
      logger.warn({ status }, reason);
      return Number.isFinite(seconds) && seconds > 0
        ? Math.min(Math.max(seconds * 1000, RETRY_AFTER_MS.min), RETRY_AFTER_MS.max)
        : retryWait();
    }
    if (status === 409 && WEBHOOK_ACTIVE.test(String(body.description))) {
      if (!webhookLogged)
        logger.error(
          { status },
          `${reason}. A webhook is set on the bot, so its updates (the links' Starts) cannot be read: remove it ` +
            `(deleteWebhook) to link Telegram chats; polling again every ${WEBHOOK_SET_WAIT_MS / 60_000} minutes`,
        );
      webhookLogged = true;
      return WEBHOOK_SET_WAIT_MS;
    }
    if (status === 409 || status >= 500) {
      logger.warn({ status }, reason);
      return retryWait();
    }
    logger.error({ status }, reason);
    failures = Math.max(failures, 30);
    return retryWait();
  }

  /**
   * Polls while the lock is held, for one term. Before each poll the lock's session is asked whether it is
   * still there (decision 922): once its connection is lost the lock may be another instance's, and this
   * reader stops at once rather than poll beside it for the rest of the term.
   */
  async function term(signal: AbortSignal, stillHeld: () => Promise<void>): Promise<void> {
    const ends = performance.now() + termMs;
    while (!signal.aborted && performance.now() < ends) {
      try {
        await stillHeld();
      } catch (error) {
        if (signal.aborted) return;
        lockLost = true;
        logger.warn(
          { reason: (error as Error).message },
          'the telegram updates lock was lost with its database connection; polling stops until it is held again',
        );
        throw error;
      }
      const waitMs = await pollOnce(signal);
      if (waitMs > 0 && !signal.aborted) await pause(waitMs, signal);
    }
  }

  async function run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      lockLost = false;
      try {
        if (await options.whileHolding((stillHeld) => term(signal, stillHeld))) continue;
        await pause(standbyMs, signal);
      } catch (error) {
        if (signal.aborted) return;
        // A lost lock was logged as such; the transaction's own failure to end says nothing more.
        if (!lockLost)
          logger.warn({ err: error }, 'the telegram updates lock could not be held; asking again after a wait');
        await pause(retryWait(), signal);
      }
    }
  }

  return {
    start() {
      if (loop) return;
      stopping = new AbortController();
      loop = run(stopping.signal);
    },
    async stop() {
      stopping?.abort();
      await loop;
      loop = undefined;
    },
  };
}
