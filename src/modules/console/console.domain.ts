// The console's fixed rules: its Content-Security-Policy and the refresh-token cookie (decision 160).

/**
 * Only this origin's scripts, styles and connections; images from here or inline `data:` (the
 * two-factor QR code is an SVG shown as an <img>); no plugins, no <base>, never framed.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The refresh token's cookie: sent only to the console's session routes, never readable by scripts. */
const REFRESH_COOKIE = 'tp_console_refresh';
const SESSION_PATH = '/api/console/session';

export function refreshCookie(value: string, options: { maxAgeSeconds: number; secure: boolean }): string {
  return [
    `${REFRESH_COOKIE}=${value}`,
    `Path=${SESSION_PATH}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedRefreshCookie(secure: boolean): string {
  return refreshCookie('', { maxAgeSeconds: 0, secure });
}

/** The refresh token in a Cookie header, or undefined. */
export function readRefreshCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    if (part.slice(0, at).trim() === REFRESH_COOKIE) {
      const value = part.slice(at + 1).trim();
      return value.length > 0 && value.length <= 512 ? value : undefined;
    }
  }
  return undefined;
}

/** Whether a request may use the cookie routes: an Origin, when the browser sends one, names this host. */
export function sameOriginRequest(headers: { origin?: string; host?: string }): boolean {
  if (headers.origin === undefined) return true;
  try {
    const origin = new URL(headers.origin);
    // Through the same URL parser, so a default port written out (`:80`) compares equal to none.
    return headers.host !== undefined && origin.host === new URL(`${origin.protocol}//${headers.host}`).host;
  } catch {
    return false;
  }
}

/** Content types of the files the console build writes. */
export function contentTypeOf(file: string): string | undefined {
  if (file.endsWith('.js')) return 'text/javascript; charset=utf-8';
  if (file.endsWith('.css')) return 'text/css; charset=utf-8';
  if (file.endsWith('.svg')) return 'image/svg+xml';
  if (file.endsWith('.png')) return 'image/png';
  if (file.endsWith('.woff2')) return 'font/woff2';
  if (file.endsWith('.txt')) return 'text/plain; charset=utf-8';
  return undefined;
}
