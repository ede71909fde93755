// What venues send when something between them and us breaks, for the fakes to answer with (STYLE rule 8):
// a CDN's HTML error page (with a 5xx, or with 200 from a proxy that rewrote it), JSON cut short, and a body
// cut off mid-way (the connection closed before the length the headers promised).
import type { ServerResponse } from 'node:http';

/** A CDN's "bad gateway" page, as Cloudflare serves it in front of a venue whose origin failed. */
export const CDN_ERROR_PAGE =
  '<!DOCTYPE html>\n<html lang="en-US"><head><title>api.venue.test | 502: Bad gateway</title></head>' +
  '<body><div id="cf-error-details"><h1>Bad gateway</h1><span>Error code 502</span>' +
  '<p>The web server reported a bad gateway error.</p><p>Cloudflare Ray ID: 8a1b2c3d4e5f6a7b</p></div></body></html>\n';

/** JSON that ends before it closes: what a 200 looks like when a proxy cut it at a buffer's end. */
export const BROKEN_JSON = '{"makerCommission":10,"balances":[{"asset":"BTC","free":"0.5","locked":';

/** How an answer's body is sent: whole, or its first half and then the connection closed. */
export interface BodyForm {
  /** Sent as is (not as JSON); with `contentType` (default text/html). */
  raw?: string;
  contentType?: string;
  /** Promise the whole length, send half, close the connection. */
  truncate?: boolean;
}

/** Writes an answer whose body is `text`, cut short when `truncate`. */
export function writeBody(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  text: string,
  truncate = false,
): void {
  if (!truncate) {
    res.writeHead(status, headers);
    res.end(text);
    return;
  }
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
  res.write(text.slice(0, Math.floor(text.length / 2)), () => res.destroy());
}
