// The settings of TradingView signal hooks (decision 220) and of users' own notification channels
// (decision 222), read by config.ts with every other setting.
import ipaddr from 'ipaddr.js';
import type { EnvReader } from './env-reader.ts';

/** The addresses TradingView posts every user's alerts from (PROTOCOLS: IPv4 only, these four). */
export const TRADINGVIEW_ADDRESSES = ['52.89.214.238', '34.212.75.30', '54.218.53.128', '52.32.178.7'] as const;

export interface SignalsSettings {
  /** The origin TradingView reaches this server at (PUBLIC_URL); unset: the request's own. */
  readonly publicUrl: string | undefined;
  /** Alerts one hook may post per minute before 429 (SIGNAL_HOOK_LIMIT_PER_MINUTE). */
  readonly hookLimitPerMinute: number;
  /** Alerts one client address may post per minute, over every hook (SIGNAL_ADDRESS_LIMIT_PER_MINUTE). */
  readonly addressLimitPerMinute: number;
  /**
   * Addresses many users' alerts come from (SIGNAL_SHARED_ADDRESSES, comma-separated or `none`; TradingView's four by
   * default): not throttled as one sender, so no user's alerts spend the others' (decision 1090).
   */
  readonly sharedAddresses: readonly string[];
  /** Alerts with their hook's secret all hooks of one owner may take per minute (SIGNAL_OWNER_LIMIT_PER_MINUTE). */
  readonly ownerLimitPerMinute: number;
  /**
   * How long an alert's order step may run before the alert is acknowledged without its order id
   * (SIGNAL_ACK_WITHIN_MS): under TradingView's 3 s, which it waits for an answer.
   */
  readonly ackWithinMs: number;
}

export interface NotifySettings {
  readonly telegramBotToken: string | undefined;
  /**
   * The bot's username (TELEGRAM_BOT_USERNAME, without the @): the link `https://t.me/<username>?start=<code>`
   * that proves a chat is the user's (decision 860). Unset: no chat can be linked, so Telegram tells no one.
   */
  readonly telegramBotUsername: string | undefined;
  /** Replaces https://api.telegram.org (TELEGRAM_API_URL; tests point it at a loopback fake). */
  readonly telegramApiUrl: string;
  /** Lets users' webhook URLs use http and private, loopback and link-local addresses (tests only). */
  readonly allowPrivateUrls: boolean;
  /** Per-request limit of one notification sent to Telegram or a user's webhook (NOTIFY_TIMEOUT_MS). */
  readonly timeoutMs: number;
}

export function readSignals(env: EnvReader): SignalsSettings {
  return {
    publicUrl: env.url('PUBLIC_URL'),
    hookLimitPerMinute: env.integer('SIGNAL_HOOK_LIMIT_PER_MINUTE', 120, 1, 1_000_000),
    addressLimitPerMinute: env.integer('SIGNAL_ADDRESS_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    sharedAddresses: sharedAddresses(env),
    ownerLimitPerMinute: env.integer('SIGNAL_OWNER_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    ackWithinMs: env.integer('SIGNAL_ACK_WITHIN_MS', 2_500, 100, 60_000),
  };
}

/** SIGNAL_SHARED_ADDRESSES: IP addresses, comma-separated, or `none`; each as ipaddr.js writes it. */
function sharedAddresses(env: EnvReader): readonly string[] {
  const raw = env.string('SIGNAL_SHARED_ADDRESSES');
  if (raw === undefined) return TRADINGVIEW_ADDRESSES;
  if (raw.toLowerCase() === 'none') return [];
  const named = raw
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  const invalid = named.filter((part) => !ipaddr.isValid(part));
  if (invalid.length > 0) {
    env.problems.push(
      `SIGNAL_SHARED_ADDRESSES must be IP addresses, comma-separated, or none: not ${invalid.join(', ')}`,
    );
    return TRADINGVIEW_ADDRESSES;
  }
  return named.map((part) => ipaddr.process(part).toString());
}

export function readNotify(env: EnvReader): NotifySettings {
  return {
    telegramBotToken: env.string('TELEGRAM_BOT_TOKEN'),
    telegramBotUsername: botUsername(env),
    telegramApiUrl: env.url('TELEGRAM_API_URL') ?? 'https://api.telegram.org',
    allowPrivateUrls: env.boolean('NOTIFY_ALLOW_PRIVATE_URLS', false),
    timeoutMs: env.integer('NOTIFY_TIMEOUT_MS', 10_000, 100, 120_000),
  };
}

/** Telegram's usernames: 5 to 32 letters, digits and underscores, starting with a letter; a leading @ is dropped. */
function botUsername(env: EnvReader): string | undefined {
  const raw = env.string('TELEGRAM_BOT_USERNAME')?.replace(/^@/, '');
  if (raw === undefined) return undefined;
  if (/^[A-Za-z][A-Za-z0-9_]{4,31}$/.test(raw)) return raw;
  env.problems.push('TELEGRAM_BOT_USERNAME must be a Telegram username: 5 to 32 letters, digits or _');
  return undefined;
}
