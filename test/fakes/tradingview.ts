// Alerts sent the way TradingView sends them (PROTOCOLS B12): a POST of the alert's message, as
// `application/json` when the message parses as JSON and `text/plain` otherwise, no Authorization
// header and no signature, abandoned after about 3 s. Placeholders are filled in as TradingView fills
// them, `{{timenow}}` at second precision.

/** TradingView gives up on a receiver after about this long. */
export const TRADINGVIEW_TIMEOUT_MS = 3_000;

export interface AlertDelivery {
  /** The HTTP status; undefined when TradingView would have given up (no answer within 3 s). */
  status: number | undefined;
  body: string;
  elapsedMs: number;
}

/** `{{timenow}}` as TradingView writes it: ISO 8601 UTC, second precision. */
export const timenow = (at: Date) => `${at.toISOString().slice(0, 19)}Z`;

/** The message with TradingView's placeholders filled in. */
export function fillPlaceholders(
  message: string,
  values: { timenow?: Date; orderId?: string; ticker?: string },
): string {
  return message
    .replaceAll('{{timenow}}', timenow(values.timenow ?? new Date()))
    .replaceAll('{{strategy.order.id}}', values.orderId ?? 'Long')
    .replaceAll('{{ticker}}', values.ticker ?? 'BTCUSDT');
}

/** The content type TradingView chooses for a message. */
export function contentTypeOf(message: string): string {
  try {
    JSON.parse(message);
    return 'application/json; charset=utf-8';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}

/** The request TradingView makes, for `app.inject` (headers and payload only). */
export function alertRequest(message: string): { headers: Record<string, string>; payload: string } {
  return { headers: { 'content-type': contentTypeOf(message), 'user-agent': 'Go-http-client/1.1' }, payload: message };
}

/** Posts the message over HTTP as TradingView does, giving up after 3 s. */
export async function sendAlert(url: string, message: string): Promise<AlertDelivery> {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      ...alertRequest(message),
      body: message,
      signal: AbortSignal.timeout(TRADINGVIEW_TIMEOUT_MS),
    });
    const body = await response.text();
    return { status: response.status, body, elapsedMs: performance.now() - started };
  } catch {
    return { status: undefined, body: '', elapsedMs: performance.now() - started };
  }
}
