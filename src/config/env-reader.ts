// Reading environment variables by kind (text, integer, flag, choice, URL, URL map, key), each
// problem collected rather than thrown, so that one start lists every one of them.
import type { Known } from './job-schedules.ts';

export type Env = Readonly<Record<string, string | undefined>>;

/** Reads variables, collecting every problem instead of stopping at the first. */
export class EnvReader {
  readonly problems: string[] = [];
  constructor(
    private readonly env: Env,
    readonly known: Known = {},
  ) {}

  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    this.problems.push(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
    return fallback;
  }

  url(name: string, fallback?: string): string | undefined {
    const raw = this.string(name) ?? fallback;
    if (raw === undefined) return undefined;
    if (!isUrl(raw)) this.problems.push(`${name} must be an absolute URL`);
    return raw.replace(/\/+$/, '');
  }

  urlMap(name: string): Record<string, string> {
    const raw = this.string(name);
    if (raw === undefined) return {};
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      const entries = Object.entries(parsed as Record<string, unknown>);
      for (const [key, value] of entries) {
        if (typeof value !== 'string' || !isUrl(value)) this.problems.push(`${name}.${key} must be an absolute URL`);
      }
      return Object.fromEntries(entries.map(([k, v]) => [k, String(v).replace(/\/+$/, '')]));
    } catch {
      this.problems.push(`${name} must be a JSON object mapping names to URLs`);
      return {};
    }
  }

  /** A 32-byte key in base64, as ENCRYPTION_KEY holds it. */
  key(name: string, value: string): Buffer {
    const key = Buffer.from(value, 'base64');
    if (key.length !== 32) this.problems.push(`${name} must be 32 bytes encoded as base64`);
    return key;
  }
}

function isUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return [
      'http:',
      'https:',
      'ws:',
      'wss:',
      'smtp:',
      'smtps:',
      'redis:',
      'rediss:',
      'postgres:',
      'postgresql:',
    ].includes(url.protocol);
  } catch {
    return false;
  }
}
