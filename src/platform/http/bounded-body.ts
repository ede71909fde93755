// Reading an outbound call's answer without trusting its size: a peer (or whatever answers at its
// address) that sends a body without end must not make us hold it all. The read stops at the bound
// and the rest of the body is abandoned (the connection is cancelled, nothing more is buffered).

export interface BoundedBody {
  /** The body as UTF-8, at most `maxBytes` of it. */
  text: string;
  /** The body was larger than `maxBytes` (or declared so): `text` holds only its first part. */
  truncated: boolean;
}

/** Reads `response`'s body up to `maxBytes`; a larger one is cut there and its transfer cancelled. */
export async function readBoundedBody(response: Response, maxBytes: number): Promise<BoundedBody> {
  if (!response.body) return { text: '', truncated: false };
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body.cancel().catch(() => {});
    return { text: '', truncated: true };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      await reader.cancel().catch(() => {});
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
}
