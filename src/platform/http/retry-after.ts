// An HTTP Retry-After value (delta-seconds or an HTTP-date, RFC 9110 §10.2.3) in milliseconds from
// now; undefined when the header is absent or unreadable.
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const raw = headers.get('retry-after');
  if (raw === null || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  // Every HTTP-date form begins with a day name; anything else is not one, whatever Date.parse makes of it.
  const date = /^[A-Za-z]/.test(raw.trim()) ? Date.parse(raw) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
