// TradingView alerts (docs/decisions/220): every check runs before anything but a counter is written —
// the address throttle, the secret (constant time), the hook's own throttle, the fields, staleness — then
// the alert is claimed once per (hook, alert id) and its order goes through the order placer, the same
// door as POST /api/orders. Only an alert that proved the secret counts against its hook's limit; the
// others are bounded on counters of their own (decision 841), so nobody without the secret can spend it,
// and only they write the hook's last_error (decision 920), so nobody without it can overwrite the owner's.
// The addresses every user's alerts come from (TradingView's) are not throttled as one sender; an owner's
// alerts are bounded over all of their hooks instead, so no user spends the others' (decision 1090).
import { randomUUID, timingSafeEqual } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import type { Cache } from '../../platform/cache/cache.ts';
import type { Clock } from '../../platform/clock.ts';
import { settledWithin } from '../../platform/timeouts.ts';
import { clientKey } from '../../platform/http/client-address.ts';
import { AppError, rateLimited, validationFailed } from '../../platform/http/errors.ts';
import {
  alertKeyOf,
  fieldsOf,
  isStale,
  notAnAlert,
  owedAlert,
  readAlert,
  secretOf,
  type Alert,
} from './alerts.domain.ts';
import type { AlertOrderStep, Placed } from './alert-order-step.ts';
import { secretHash } from './hooks.service.ts';
import type { HookRow, SignalsRepository } from './signals.repository.ts';

export interface AlertAnswer {
  /**
   * 202: this alert made the order; 200: a repeat of an alert that made it before (the order door answering
   * its key with the order an earlier copy stored included: decision 710).
   */
  status: 200 | 202;
  orderId: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const WINDOW_MS = 60_000;
/** How long a repeat waits for the first copy, placing on another instance, to name its order. */
const REPEAT_WAIT_MS = 2_000;
/** Compared against when the hook does not exist, so an unknown hook costs what a known one does. */
const NO_HASH = secretHash('no such hook');

const wrongSecret = () => new AppError('unauthenticated', 'Invalid signal hook or secret');
const staleAlert = (maxLag: number) =>
  validationFailed([
    {
      type: 'value_error',
      loc: ['body', 'time'],
      msg: `Value error, stale: the alert was fired more than ${maxLag} s from now`,
      input: null,
      ctx: { error: 'stale' },
    },
  ]);

/** Same length hex digests; timingSafeEqual so that the comparison leaks nothing of the stored hash. */
function sameSecret(given: string | undefined, storedHash: string): boolean {
  const a = Buffer.from(secretHash(given ?? ''), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

function allowed(hook: HookRow, ip: string | undefined): boolean {
  if (!hook.allowedIps || hook.allowedIps.length === 0) return true;
  if (!ip || !ipaddr.isValid(ip)) return false;
  let address = ipaddr.parse(ip);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress())
    address = (address as ipaddr.IPv6).toIPv4Address();
  return hook.allowedIps.some((cidr) => {
    const [range, bits] = cidr.includes('/')
      ? ipaddr.parseCIDR(cidr)
      : [ipaddr.parse(cidr), cidr.includes(':') ? 128 : 32];
    return range.kind() === address.kind() && address.match(range, bits);
  });
}

export function createAlertsService(deps: {
  repo: SignalsRepository;
  cache: Pick<Cache, 'incr'>;
  limits: {
    hookPerMinute: number;
    addressPerMinute: number;
    ownerPerMinute: number;
    /** Addresses many users' alerts come from, as ipaddr.js writes them. */
    sharedAddresses: readonly string[];
  };
  /** An order step still running after this is acknowledged without its id: TradingView gives up at 3 s. */
  ackWithinMs: number;
  /**
   * A claim left without an order id for longer than this was left by a copy that stopped: a repeat takes
   * it over (decision 710; claimTakeOverAfterMs, from the order step's bounds).
   */
  takeOverAfterMs: number;
  /** Places an alert's order through the door, and reports an alert that made none (alert-order-step.ts). */
  step: AlertOrderStep;
  clock: Clock;
  logger: Logger;
}) {
  const { repo, cache, limits, ackWithinMs, takeOverAfterMs, step, clock, logger } = deps;
  const { place, refuse } = step;
  const shared = new Set(limits.sharedAddresses);
  /** Whether the address is one many users' alerts come from (an IPv4-mapped IPv6 address as its IPv4). */
  const isShared = (ip: string | undefined) =>
    ip !== undefined && ipaddr.isValid(ip) && shared.has(ipaddr.process(ip).toString());
  /** Alerts being placed by this instance, so that concurrent copies wait for the one order. */
  const inflight = new Map<string, Promise<Placed>>();

  async function throttle(key: string, limit: number, hook: HookRow | undefined, what: string): Promise<void> {
    const hit = await cache.incr(key, WINDOW_MS);
    if (hit.count <= limit) return;
    if (hook) await repo.countRefused(hook.id, `429: too many alerts ${what}`, clock.now());
    throw rateLimited(hit.resetMs / 1000, `Too many alerts ${what}; try again later`);
  }

  /**
   * An alert that did not prove the hook's secret (decision 841), counted apart from the hook's own limit:
   * per address, past which that sender is refused (429, nothing written) whichever hook it names, so
   * known and unknown hooks answer alike; and per hook, past which its refusals are no longer written.
   * Answers whether this one may be counted on the hook.
   */
  async function failed(ip: string | undefined, hook: HookRow | undefined): Promise<boolean> {
    const limit = limits.hookPerMinute;
    const address = await cache.incr(`signals:failed:address:${clientKey(ip) ?? 'unknown'}`, WINDOW_MS, limit);
    if (address.count > limit)
      throw rateLimited(address.resetMs / 1000, 'Too many refused alerts from this address; try again later');
    if (!hook) return false;
    return (await cache.incr(`signals:failed:hook:${hook.id}`, WINDOW_MS, limit)).count <= limit;
  }

  /**
   * The first copy of an alert places its order; the others answer that order (or wait for it). A claim
   * left without an order id past `takeOverAfterMs` (its copy stopped between the claim and the order's
   * id) is taken over by one repeat, which goes through the order door with the same key: the door
   * answers the order the stopped copy stored, if it got that far, and places it otherwise (decision 710).
   */
  async function once(hook: HookRow, alert: Alert, alertKey: string): Promise<AlertAnswer> {
    const flightKey = `${hook.id}\n${alertKey}`;
    const running = inflight.get(flightKey);
    if (running) {
      try {
        return { status: 200, orderId: (await running).orderId };
      } catch (error) {
        if (error instanceof Repeat) return { status: 200, orderId: error.orderId };
        throw error;
      }
    }
    const first = (async () => {
      const deadline = Date.now() + REPEAT_WAIT_MS;
      let claimed: Date;
      for (;;) {
        const now = clock.now();
        const claim = await repo.claim(
          hook.id,
          alertKey,
          now,
          new Date(now.getTime() - takeOverAfterMs),
          owedAlert(alert, now),
        );
        if ('claimed' in claim) {
          if (claim.takenOver)
            logger.warn({ hookId: hook.id, alertKey }, 'an alert claim left without its order was taken over');
          claimed = claim.claimed;
          break;
        }
        if (claim.orderId) throw new Repeat(claim.orderId);
        if (Date.now() > deadline)
          throw new AppError('conflict', 'This alert is still being placed by an earlier copy');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const release = () =>
        repo
          .release(hook.id, alertKey, claimed)
          .catch((e: unknown) => logger.warn({ err: e }, 'alert claim not released'));
      let placed: Placed;
      try {
        placed = await place(hook, alert, alertKey);
      } catch (error) {
        await release();
        throw error;
      }
      try {
        await repo.placed(hook.id, alertKey, placed.orderId);
      } catch (error) {
        // The door made (or answered) the order: this alert's answer is that order, never an error that
        // says none was made. Its claim goes, and a repeat asks the door for the order under the alert's
        // key before anything else (decision 1072); a claim that cannot go either is taken over later.
        logger.warn(
          { err: error, hookId: hook.id, orderId: placed.orderId },
          "an alert's order not recorded on its claim",
        );
        await release();
      }
      return placed;
    })();
    inflight.set(flightKey, first);
    try {
      const { orderId, created } = await first;
      return { status: created ? 202 : 200, orderId };
    } catch (error) {
      if (error instanceof Repeat) return { status: 200, orderId: error.orderId };
      throw error;
    } finally {
      inflight.delete(flightKey);
    }
  }

  return {
    /**
     * The per-address throttle, first of all and before the body is read (decision 690): past it nothing
     * is written, whatever the body; an oversized one included.
     */
    async admit(ip: string | undefined): Promise<void> {
      // TradingView's addresses carry every user's alerts: bounded per hook and per owner, not as one sender.
      if (isShared(ip)) return;
      await throttle(
        `signals:address:${clientKey(ip) ?? 'unknown'}`,
        limits.addressPerMinute,
        undefined,
        'from this address',
      );
    },

    /**
     * A body over the limit, admitted by the address throttle: refused unread (413), counted on its hook
     * within the hook's bound of unproven alerts (decision 841), its last_error left as it was (decision 920).
     */
    async oversized(hookId: string): Promise<void> {
      if (!UUID.test(hookId)) return;
      const limit = limits.hookPerMinute;
      if ((await cache.incr(`signals:failed:hook:${hookId}`, WINDOW_MS, limit)).count <= limit)
        await repo.countRefused(hookId, null, clock.now());
    },

    /** An alert admitted by `admit` (the route runs it before reading the body). */
    async receive(hookId: string, body: string, ip: string | undefined): Promise<AlertAnswer> {
      const hook = UUID.test(hookId) ? await repo.byId(hookId) : undefined;
      const fields = fieldsOf(body);
      if (!hook) {
        sameSecret(fields ? secretOf(fields) : undefined, NO_HASH);
        await failed(ip, undefined);
        throw wrongSecret();
      }
      // The secret before the hook's own throttle (decision 841): a sender without it must not spend the
      // minute's alerts of the hook whose URL it knows.
      // A body of neither form proves nothing: counted, but it does not write the hook's last_error, which
      // only alerts that proved the secret write (decision 920), or anyone with the URL could hide the owner's.
      if (!fields) {
        if (await failed(ip, hook)) await repo.countRefused(hook.id, null, clock.now());
        throw validationFailed([notAnAlert(body)]);
      }
      if (!sameSecret(secretOf(fields), hook.secretHash) || !allowed(hook, ip)) {
        if (await failed(ip, hook)) await repo.countRefused(hook.id, null, clock.now());
        throw wrongSecret();
      }
      await throttle(`signals:hook:${hook.id}`, limits.hookPerMinute, hook, 'for this hook');
      await throttle(`signals:owner:${hook.userId}`, limits.ownerPerMinute, hook, "for this account's hooks");
      const read = readAlert(fields);
      if ('issues' in read) return refuse(hook, validationFailed(read.issues), true);
      const { alert } = read;
      if (isStale(alert.time, clock.now(), hook.maxLagSeconds))
        return refuse(hook, staleAlert(hook.maxLagSeconds), true);

      // An alert without an id is claimed under a key of its own receipt: nothing dedupes it, but its claim
      // keeps what it owes until its order is made (decision 1160).
      const alertKey = alertKeyOf(alert) ?? `receipt:${randomUUID()}`;
      const work = (async (): Promise<AlertAnswer> => {
        let answer: AlertAnswer;
        try {
          answer = await once(hook, alert, alertKey);
        } catch (error) {
          if (!(error instanceof AppError)) {
            await repo
              .noteError(hook.id, 'the order could not be placed (internal error)', clock.now())
              .catch(() => {});
            throw error;
          }
          return refuse(hook, error, error.status === 422 || error.status === 429);
        }
        if (answer.status === 202) await repo.countAccepted(hook.id, clock.now());
        return answer;
      })();
      if (await settledWithin(work, ackWithinMs)) return work;
      // TradingView gives up at 3 s: the alert is acknowledged, and what becomes of its order is kept on
      // the hook (counters, last_error) and reaches the owner as it would have.
      work.catch((error: unknown) => {
        if (!(error instanceof AppError)) logger.error({ err: error, hookId: hook.id }, 'a late alert order failed');
      });
      return { status: 202, orderId: null };
    },
  };
}

/** The alert was placed before (by an earlier copy): its order. */
class Repeat extends Error {
  constructor(readonly orderId: string) {
    super('repeat');
  }
}

export type AlertsService = ReturnType<typeof createAlertsService>;
