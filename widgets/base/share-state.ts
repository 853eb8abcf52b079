// The URL hash as shareable state: "<key>.<name>=<value>" entries joined by "&", where
// <key> is an element's id (docs/embedding.md, "Shareable state"). Reading is bounded
// (MAX_HASH_LENGTH); writing is the element's, debounced (HASH_WRITE_DELAY_MS).

/** How long after the last change the URL hash is written (a sweep of a control writes once). */
export const HASH_WRITE_DELAY_MS = 200;
/** A refused hash write is tried once more this much later. */
export const HASH_RETRY_MS = 1000;
/** Longest URL hash read for shared state (a widget's state is a few hundred characters). */
export const MAX_HASH_LENGTH = 8192;

/** The hash's "&"-separated entries, still encoded. */
export function hashParts(): string[] {
  return location.hash.replace(/^#/, '').split('&').filter(Boolean);
}

/** An entry's key or value decoded ("" when it is not valid percent-encoding). */
export function decodePart(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return '';
  }
}

/** The values the hash holds for the element keyed `key`, or null when it names none of them. */
export function hashEntries(key: string): Record<string, string> | null {
  const prefix = `${key}.`;
  const values: Record<string, string> = {};
  let found = false;
  for (const part of hashParts()) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = decodePart(part.slice(0, eq));
    if (!name.startsWith(prefix)) continue;
    values[name.slice(prefix.length)] = decodePart(part.slice(eq + 1));
    found = true;
  }
  return found ? values : null;
}

/** The hash with the entries of `key` replaced by `state`, every other entry kept. */
export function hashWith(key: string, state: Record<string, string>): string {
  const prefix = `${key}.`;
  const others = hashParts().filter((p) => !decodePart(p.split('=')[0]).startsWith(prefix));
  const mine = Object.entries(state).map(([k, v]) => `${encodeURIComponent(prefix + k)}=${encodeURIComponent(v)}`);
  return [...others, ...mine].join('&');
}

/** The key of the first element the hash names (the one a link points at), or null. */
export function firstKeyInHash(): string | null {
  for (const part of hashParts()) {
    const name = decodePart(part.split('=')[0]);
    const dot = name.indexOf('.');
    if (dot >= 0) return name.slice(0, dot);
  }
  return null;
}
