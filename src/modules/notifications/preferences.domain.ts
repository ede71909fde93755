// Users' own notifications (docs/decisions/222): the events a user may be told of, the channels, and
// which webhook destinations may be posted to. A user's webhook URL is a door into our network (SSRF):
// https only, and every address its host resolves to must be public — checked when it is saved and
// again before every send, connecting to the very address that was checked. Pure.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export const NOTIFY_EVENTS = [
  'order.filled',
  'order.rejected',
  'order.canceled',
  'signal.refused',
  'trading.halted',
  'daily_loss',
] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** Until a user says otherwise: mail, about what needs their attention. */
export const DEFAULT_EVENTS: readonly NotifyEvent[] = [
  'order.rejected',
  'signal.refused',
  'trading.halted',
  'daily_loss',
];

export const WEBHOOK_FORMATS = ['slack', 'discord'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/**
 * A channel as stored: the telegram chat and the webhook URL sealed (the URL carries its token). A Telegram
 * chat is `proven` once its user opened the bot's link from it (decision 860); one typed in before that
 * (no `proven`) is kept but told nothing.
 */
export type StoredChannel =
  | { id: string; type: 'email' }
  | { id: string; type: 'telegram'; sealed: string; proven?: true }
  | { id: string; type: 'webhook'; format: WebhookFormat; sealed: string; shown: string };

/**
 * Whether an address is on the public internet: ipaddr's `unicast` range only, which leaves out
 * private, loopback, link-local, unique-local, CGNAT, multicast, reserved, 6to4 and Teredo space. An
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** The host of a URL as it is resolved: brackets off an IPv6 literal. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Why this URL may not be a destination before anything is resolved; undefined when it may. */
export function urlProblem(text: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'only https URLs are allowed';
  if (url.username || url.password) return 'a URL with credentials is not allowed';
  const host = hostOf(url);
  if (!host) return 'the URL has no host';
  if (!allowPrivate && isIP(host) !== 0 && !isPublicAddress(host))
    return 'the URL points at a private, loopback or link-local address';
  return undefined;
}

/** The first resolved address that is not public, when private destinations are refused. */
export function privateAmong(addresses: readonly { address: string }[], allowPrivate: boolean): string | undefined {
  if (allowPrivate) return undefined;
  return addresses.find((entry) => !isPublicAddress(entry.address))?.address;
}

/** How a stored webhook URL is shown back: its origin only; the path holds the receiver's token. */
export const shownUrl = (text: string) => `${new URL(text).origin}/…`;

/** Whether a URL sent is a webhook as shown back (`https://host/…`), standing for a saved one, not one to save. */
export function isShownUrl(text: string): boolean {
  try {
    return shownUrl(text) === text;
  } catch {
    return false;
  }
}

type WebhookChannel = Extract<StoredChannel, { type: 'webhook' }>;

/**
 * What a webhook URL sent back as shown stands for: the saved webhook it keeps; `ambiguous`, the number
 * saved on its origin when fewer of them were sent back (any could be the one meant); or `none` when more
 * were sent back than are saved there.
 */
export type ShownWebhook = { kept: WebhookChannel } | { ambiguous: number } | { none: true };

/**
 * Which saved webhook each URL sent back as shown keeps, by the index of its channel in what was sent
 * (`urls`: each channel's URL, undefined for other channels). Webhooks on one origin are shown alike, so
 * they are told apart by their order, the order they are shown in: the n-th shown URL of an origin keeps
 * the n-th webhook saved there (decision 1260).
 */
export function shownWebhooks(
  urls: readonly (string | undefined)[],
  before: readonly StoredChannel[],
): Map<number, ShownWebhook> {
  const saved = new Map<string, WebhookChannel[]>();
  for (const channel of before)
    if (channel.type === 'webhook') saved.set(channel.shown, [...(saved.get(channel.shown) ?? []), channel]);
  const sent = new Map<string, number[]>();
  urls.forEach((url, index) => {
    if (url !== undefined && isShownUrl(url)) sent.set(url, [...(sent.get(url) ?? []), index]);
  });
  const found = new Map<number, ShownWebhook>();
  for (const [url, indexes] of sent) {
    const candidates = saved.get(url) ?? [];
    indexes.forEach((index, n) => {
      const candidate = candidates[n];
      if (!candidate) found.set(index, { none: true });
      else if (indexes.length < candidates.length) found.set(index, { ambiguous: candidates.length });
      else found.set(index, { kept: candidate });
    });
  }
  return found;
}
