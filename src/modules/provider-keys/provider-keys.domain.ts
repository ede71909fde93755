// Pure rules of provider keys: which providers exist, how much of a key may be shown, and when a
// key is due for rotation.

/** Five AI-model providers and two web-search providers. */
export const PROVIDERS = ['openai', 'anthropic', 'google', 'mistral', 'groq', 'tavily', 'serper'] as const;
export type Provider = (typeof PROVIDERS)[number];

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_PREFIX_CHARS = 7;
export const REMINDER_WINDOW_DAYS = 14;

/**
 * The visible start of a key: at most 7 characters and never more than a quarter of the key, so a
 * short key keeps at least three quarters hidden. For real keys this is the vendor's fixed marker
 * (`sk-proj`, `sk-ant-`, `AIzaSy`, `gsk_`, `tvly-`) plus at most a few random characters.
 */
export function keyPrefix(apiKey: string): string {
  const visible = Math.min(MAX_PREFIX_CHARS, Math.floor(apiKey.length / 4));
  return `${apiKey.slice(0, visible)}…`;
}

/** Rotation is due `days` after the last rotation, or after creation when never rotated. */
export function nextRotationDate(lastRotatedAt: Date | null, createdAt: Date, days: number): Date {
  return new Date((lastRotatedAt ?? createdAt).getTime() + days * DAY_MS);
}

/** Whole days left until `due`, rounded down: 0 on the due day, negative once overdue. */
export function daysUntil(due: Date, now: Date): number {
  return Math.floor((due.getTime() - now.getTime()) / DAY_MS);
}

/** The latest next-rotation date that still gets a reminder. */
export function reminderCutoff(now: Date, withinDays: number = REMINDER_WINDOW_DAYS): Date {
  return new Date(now.getTime() + withinDays * DAY_MS);
}

/** Where a provider key is sealed: its ciphertext opens in that row only. */
export const sealedAt = (row: string) => ({ table: 'provider_api_keys', column: 'encrypted_key', row });
