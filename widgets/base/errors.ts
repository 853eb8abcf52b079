// What a widget says when something is wrong: the error authors' and readers' input raises,
// and the shortening of what a message quotes from that input (an attribute or a link can
// hold megabytes; a message shows a short excerpt).
import { formatCount } from '../chart/format.js';

/** An author-facing problem (bad attribute or content): shown in the widget, not thrown to the page. */
export class WidgetInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WidgetInputError';
  }
}

/** A quoted value in a message is cut to this many characters (an attribute or a link can hold megabytes). */
const QUOTE_EXCERPT = 40;
/** Longest message shown in a widget. */
const MAX_MESSAGE_LENGTH = 400;

/**
 * Shortens what a message quotes from the reader's or author's input: each "…" run longer than
 * QUOTE_EXCERPT characters keeps its first QUOTE_EXCERPT and says how long it was; the whole message
 * is cut at MAX_MESSAGE_LENGTH.
 */
export function excerptQuotes(message: string): string {
  const short = message.replace(/"([^"]*)"/g, (whole, inner: string) =>
    inner.length <= QUOTE_EXCERPT ? whole : `"${inner.slice(0, QUOTE_EXCERPT)}…" (${formatCount(inner.length)} characters)`,
  );
  return short.length <= MAX_MESSAGE_LENGTH ? short : `${short.slice(0, MAX_MESSAGE_LENGTH - 1)}…`;
}

/** The message of anything thrown. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
