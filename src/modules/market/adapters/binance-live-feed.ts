// Binance's all-market mini-ticker stream (`<BINANCE_WS_URL>/ws/!miniTicker@arr`) kept in an
// in-memory price map. The stream sends, about once a second, the symbols whose ticker changed. The
// connection is re-opened with exponential back-off (1 s doubling to 5 minutes, with jitter) whenever it
// closes, fails, or stays silent for 30 s; while it is not live, callers fall back to REST.
import type { Logger } from 'pino';
import WebSocket from 'ws';
import { backoffDelay } from '../../../platform/backoff.ts';
import type { Clock } from '../../../platform/clock.ts';
import type { LiveFeedState, LivePriceFeed, LiveTick } from './market-source.ts';

const STREAM_PATH = '/ws/!miniTicker@arr';

interface LiveFeedOptions {
  baseUrl: string;
  clock: Clock;
  logger: Logger;
  backoff?: { baseMs: number; maxMs: number };
  /** Without a message for this long the stream counts as down and is re-opened. */
  silenceMs?: number;
  random?: () => number;
}

/** Each reconnect waits between half and all of the doubled delay. */
const RECONNECT_JITTER = [0.5, 1] as const;

interface MiniTicker {
  e?: string;
  E?: number;
  s?: string;
  c?: string;
}

export function createBinanceLiveFeed(options: LiveFeedOptions): LivePriceFeed {
  const { clock, logger } = options;
  const backoff = options.backoff ?? { baseMs: 1_000, maxMs: 300_000 };
  const silenceMs = options.silenceMs ?? 30_000;
  const random = options.random ?? Math.random;
  const prices = new Map<string, LiveTick>();
  const listeners = new Set<(ticks: readonly LiveTick[]) => void>();
  let socket: WebSocket | undefined;
  let status: LiveFeedState['status'] = 'idle';
  let attempt = 0;
  let reconnects = 0;
  let connectedSince: number | null = null;
  let lastMessageAt: number | null = null;
  let nextAttemptAt: number | null = null;
  let lastError: string | null = null;
  let retryTimer: NodeJS.Timeout | undefined;
  let watchdog: NodeJS.Timeout | undefined;

  const now = () => clock.now().getTime();
  const live = () => status === 'connected' && lastMessageAt !== null && now() - lastMessageAt <= silenceMs;

  function connect(): void {
    status = attempt === 0 && reconnects === 0 ? 'connecting' : 'reconnecting';
    nextAttemptAt = null;
    const ws = new WebSocket(`${options.baseUrl}${STREAM_PATH}`, { handshakeTimeout: 10_000 });
    socket = ws;
    ws.on('open', () => {
      if (reconnects > 0) logger.info({ reconnects }, 'market price stream connected again');
      status = 'connected';
      connectedSince = now();
      lastError = null;
    });
    ws.on('message', (data) => {
      // Back-off starts over only once the stream has really delivered.
      attempt = 0;
      lastMessageAt = now();
      apply(data.toString());
    });
    ws.on('unexpected-response', (_request, response) => {
      lastError = `stream refused the connection with HTTP ${response.statusCode}`;
      ws.terminate();
    });
    ws.on('error', (error) => {
      lastError = error.message;
    });
    ws.on('close', () => {
      if (socket !== ws) return;
      socket = undefined;
      connectedSince = null;
      if (status === 'stopped') return;
      scheduleReconnect();
    });
  }

  function apply(text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    // Raw streams send the array; combined streams wrap it as {stream, data}.
    const events = Array.isArray(parsed) ? parsed : (parsed as { data?: unknown })?.data;
    if (!Array.isArray(events)) return;
    const batch: LiveTick[] = [];
    for (const event of events as MiniTicker[]) {
      if (event?.e !== '24hrMiniTicker' || typeof event.s !== 'string' || typeof event.c !== 'string') continue;
      const tick = { symbol: event.s, price: event.c, eventTime: Number(event.E) || now() };
      prices.set(event.s, tick);
      batch.push(tick);
    }
    if (batch.length === 0) return;
    for (const listener of listeners) {
      try {
        listener(batch);
      } catch (error) {
        logger.error({ err: error }, 'market price listener failed');
      }
    }
  }

  function scheduleReconnect(): void {
    status = 'reconnecting';
    const delay = backoffDelay(attempt, { ...backoff, jitter: RECONNECT_JITTER }, random);
    attempt += 1;
    reconnects += 1;
    nextAttemptAt = now() + delay;
    // Said once per outage, with what to do about it; an offline machine would otherwise log this
    // for as long as it runs. The attempts that follow, further and further apart, go to debug.
    if (attempt === 1) {
      logger.warn(
        { delayMs: delay, error: lastError },
        'market price stream unreachable; retrying with back-off up to 5 minutes (offline? ' +
          'MARKET_DATA_SOURCE=simulated serves demo prices, MARKET_LIVE_STREAM=false leaves the stream closed)',
      );
    } else {
      logger.debug({ delayMs: delay, attempt, error: lastError }, 'market price stream still unreachable');
    }
    retryTimer = setTimeout(connect, delay);
    retryTimer.unref();
  }

  return {
    start() {
      if (status !== 'idle' && status !== 'stopped') return;
      status = 'idle';
      connect();
      watchdog = setInterval(
        () => {
          if (
            socket &&
            status === 'connected' &&
            now() - Math.max(lastMessageAt ?? 0, connectedSince ?? 0) > silenceMs
          ) {
            lastError = `no message for ${silenceMs} ms`;
            socket.terminate();
          }
        },
        Math.max(1_000, silenceMs / 3),
      );
      watchdog.unref();
    },

    async stop() {
      status = 'stopped';
      clearTimeout(retryTimer);
      clearInterval(watchdog);
      const ws = socket;
      socket = undefined;
      if (ws && ws.readyState !== WebSocket.CLOSED) {
        await new Promise<void>((resolve) => {
          ws.once('close', () => resolve());
          ws.terminate();
        });
      }
    },

    tick: (symbol) => (live() ? prices.get(symbol) : undefined),
    ticks: () => (live() ? prices.values() : []),

    onTicks(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    state: () => ({
      status,
      live: live(),
      connectedSince,
      lastMessageAt,
      reconnects,
      nextAttemptAt,
      lastError,
      symbols: prices.size,
    }),
  };
}
