// Reading a downloaded file within a size limit, for the model sources (widgets/max-digit/model.ts,
// widgets/transformer/model.ts): a file larger than a page's model is refused before it can
// exhaust the tab (limits: docs/limits.md), each caller wording the refusal in its own terms.

/** A body over the limit: `declared` is its Content-Length when that said so, null when it grew past the limit while arriving. */
export class BodyTooLarge extends Error {
  constructor(readonly declared: number | null) {
    super(declared === null ? 'the body grew past the limit' : `the body is ${declared} bytes`);
  }
}

/**
 * The body of `response` as bytes, refusing more than `maxBytes`: by its Content-Length before
 * reading, else counted as the chunks arrive (the read is then cancelled); `progress` after each
 * chunk with the bytes received and the declared total (0 when unknown). Throws BodyTooLarge.
 */
export async function boundedBody(response: Response, maxBytes: number,
  progress: (received: number, total: number) => void = () => {}): Promise<Uint8Array> {
  const total = Number(response.headers.get('content-length') ?? 0) || 0;
  if (total > maxBytes) throw new BodyTooLarge(total);
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      void reader.cancel();
      throw new BodyTooLarge(null);
    }
    chunks.push(value);
    progress(received, total);
  }
  const out = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.byteLength; }
  return out;
}

/** A URL as a message shows it: the path for this origin, the whole URL otherwise. */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return u.origin === location.origin ? u.pathname : url;
  } catch {
    return url;
  }
}
