// Downloading a model's files, for the model sources (widgets/max-digit/model.ts,
// widgets/transformer/model.ts): one mechanism for both. A file larger than a page's model is
// refused before it can exhaust the tab, and a download that has not ended within its time (a
// stalled server, or one dripping bytes) is abandoned, so a model element never stays "loading"
// for ever (limits: docs/limits.md); each caller words the refusal in its own terms.

/** Bounds of a model element's `timeout` attribute (seconds a download may take). */
export const MIN_DOWNLOAD_TIMEOUT_S = 1;
export const MAX_DOWNLOAD_TIMEOUT_S = 600;

/** A body over the limit: `declared` is its Content-Length when that said so, null when it grew past the limit while arriving. */
export class BodyTooLarge extends Error {
  constructor(readonly declared: number | null) {
    super(declared === null ? 'the body grew past the limit' : `the body is ${declared} bytes`);
  }
}

/** A download that did not give the file: `reason` says why ("HTTP 404 Not Found", "no complete answer within 30 s; …"). */
export class DownloadFailed extends Error {
  constructor(
    readonly reason: string,
    readonly timedOut = false,
  ) {
    super(reason);
  }
}

/**
 * The body of `response` as the chunks it arrived in, refusing more than `maxBytes`: by its
 * Content-Length before reading, else counted as the chunks arrive (the read is then cancelled);
 * `progress` after each chunk with the bytes received and the declared total (0 when unknown).
 * Throws BodyTooLarge.
 */
async function boundedChunks(
  response: Response,
  maxBytes: number,
  progress: (received: number, total: number) => void = () => {},
): Promise<{ chunks: Uint8Array[]; received: number }> {
  const total = Number(response.headers.get('content-length') ?? 0) || 0;
  if (total > maxBytes) throw new BodyTooLarge(total);
  if (!response.body) {
    const whole = new Uint8Array(await response.arrayBuffer());
    if (whole.byteLength > maxBytes) throw new BodyTooLarge(null);
    return { chunks: [whole], received: whole.byteLength };
  }
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
  return { chunks, received };
}

/** The body of `response` as bytes (boundedChunks joined). Throws BodyTooLarge. */
export async function boundedBody(
  response: Response,
  maxBytes: number,
  progress: (received: number, total: number) => void = () => {},
): Promise<Uint8Array> {
  const { chunks, received } = await boundedChunks(response, maxBytes, progress);
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

export interface DownloadOptions {
  /** Largest body accepted (BodyTooLarge beyond it). */
  maxBytes: number;
  /** Seconds the whole download (answer, headers and every byte of the body) may take. */
  timeoutS: number;
  /** Called after each chunk with the bytes received and the declared total (0 when unknown). */
  progress?: (received: number, total: number) => void;
  /** Ends the download early (a sibling file failed, the element moved to other files); throws DownloadFailed. */
  signal?: AbortSignal;
}

/**
 * The file at `url` (absolute) as bytes. The whole download must end within `timeoutS`: a server
 * that never answers, stops after its headers or sends 64 bytes a second is abandoned then
 * (AbortController), as is a body over `maxBytes`. Throws DownloadFailed (no answer, an HTTP
 * error, the time limit: `timedOut`) or BodyTooLarge.
 */
export function download(url: string, options: DownloadOptions): Promise<Uint8Array> {
  return downloading(url, options, (response) => boundedBody(response, options.maxBytes, options.progress));
}

/**
 * The file at `url` as a Blob of the chunks as they arrived (a model's weights: never joined into
 * one ArrayBuffer on the page; the Blob goes to a worker as a handle), as download() bounds it.
 */
export function downloadBlob(url: string, options: DownloadOptions): Promise<Blob> {
  return downloading(
    url,
    options,
    async (response) => new Blob((await boundedChunks(response, options.maxBytes, options.progress)).chunks as Uint8Array<ArrayBuffer>[]),
  );
}

async function downloading<T>(url: string, { timeoutS, signal }: DownloadOptions, body: (response: Response) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutS * 1000);
  const cancel = () => abort.abort();
  signal?.addEventListener('abort', cancel);
  if (signal?.aborted) abort.abort();
  try {
    const response = await fetch(url, { signal: abort.signal });
    if (!response.ok) throw new DownloadFailed(`HTTP ${response.status} ${response.statusText}`.trim());
    return await body(response);
  } catch (err) {
    if (timedOut) throw new DownloadFailed(`no complete answer within ${timeoutS} s; the download was abandoned`, true);
    if (abort.signal.aborted) throw new DownloadFailed('the download was cancelled');
    if (err instanceof DownloadFailed || err instanceof BodyTooLarge) throw err;
    throw new DownloadFailed((err as Error).message);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', cancel);
  }
}

/**
 * The absolute URL of a file an author names in an attribute, resolved against the page. A `%`
 * that does not start a percent-escape (two hex digits) is the file name's own character
 * ("50%.safetensors") and is sent as %25: left bare, the server cannot decode the path.
 */
export function fileUrl(attribute: string, base: string = document.baseURI): string {
  return new URL(attribute.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'), base).href;
}

/** The file name at the end of `url`, decoded for captions (as written when it is not valid percent-encoding). */
export function fileName(url: string): string {
  const last = url.split(/[?#]/)[0].split('/').pop() ?? url;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
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
