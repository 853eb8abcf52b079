// Typed fields: a text or number field validated as the reader types (docs/reading.md,
// "Typed fields"). After `delay` ms without typing (and at once on Enter or leaving the field)
// the text is parsed; a valid value is committed, an invalid or empty one marks the field
// aria-invalid and says why in a message beside it, keeping the last valid value.
import { el } from './dom.js';
import { excerptQuotes, WidgetInputError } from './errors.js';
import { localId } from './ids.js';

export interface FieldOptions<T> {
  /** The field's name in messages ("the seed"). */
  label: string;
  /** Parses the text; throws WidgetInputError with the reason ("must be an integer from 0 to 9"). */
  parse: (text: string) => T;
  commit: (value: T) => void;
  /** Names the kept value in the message. */
  current?: () => string;
  /** Milliseconds without typing before the text is checked (default 300; 0: at every keystroke). */
  delay?: number;
  /** Where the message goes; default: a new span placed right after the field's label (or the field). */
  message?: HTMLElement;
}

/** `show(text)` (call it from render()) writes the field unless the reader is editing it or it holds an invalid entry. */
export interface BoundField {
  message: HTMLElement;
  check: () => boolean;
  show: (text: string) => void;
}

/** What the field needs from its widget. */
export interface FieldHost {
  listen(target: EventTarget, type: string, handler: (event: Event) => void): void;
  guard(fn: () => void): void;
  /** Aborted when the widget is detached (a pending check is then dropped). */
  signal: AbortSignal | undefined;
  isEditing(): boolean;
  isConnected(): boolean;
  /** Told when a check is scheduled (true) and when it ran or was cancelled (false): the widget's updatePending. */
  checkScheduled?(input: HTMLInputElement | HTMLTextAreaElement, scheduled: boolean): void;
  /** The widget: its message ids are counted per widget (ids.ts). */
  owner: object;
}

export function bindField<T>(input: HTMLInputElement | HTMLTextAreaElement, options: FieldOptions<T>, host: FieldHost): BoundField {
  const delay = options.delay ?? 300;
  const message = options.message ?? el('span', { class: 'field-problem', role: 'status' });
  if (!message.id) message.id = localId(host.owner, 'field-problem');
  if (!options.message) {
    const anchor = input.closest('label') ?? input;
    anchor.after(message);
  }
  input.setAttribute('aria-describedby', [input.getAttribute('aria-describedby'), message.id].filter(Boolean).join(' '));
  let timer = 0;
  const cancel = (): void => {
    if (!timer) return;
    clearTimeout(timer);
    timer = 0;
    host.checkScheduled?.(input, false);
  };
  // Once: an aborted signal (the widget was detached) keeps no listener of a field it no longer shows.
  host.signal?.addEventListener('abort', cancel, { once: true });
  const check = (): boolean => {
    cancel();
    const text = input.value.trim();
    let value: T;
    try {
      if (text === '') throw new WidgetInputError(`${options.label} is empty`);
      value = options.parse(text);
    } catch (err) {
      if (!(err instanceof Error && err.name === 'WidgetInputError')) throw err;
      input.setAttribute('aria-invalid', 'true');
      const kept = options.current ? ` (${options.current()})` : '';
      // Excerpted as every message is (a pasted prompt of 100,000 characters is quoted by its first 40).
      message.textContent = `${excerptQuotes(err.message)}; the last valid value${kept} is kept.`;
      return false;
    }
    input.setAttribute('aria-invalid', 'false');
    message.textContent = '';
    options.commit(value);
    return true;
  };
  host.listen(input, 'input', () => {
    cancel();
    if (delay <= 0) {
      check();
      return;
    }
    timer = window.setTimeout(() => {
      timer = 0;
      host.checkScheduled?.(input, false);
      if (host.isConnected())
        host.guard(() => {
          check();
        });
    }, delay);
    host.checkScheduled?.(input, true);
  });
  host.listen(input, 'change', () => {
    check();
  });
  // A text area (a prompt that wraps) commits on Enter as a one-line field does; Shift+Enter is a new line.
  if (input instanceof HTMLTextAreaElement) {
    host.listen(input, 'keydown', (event) => {
      const e = event as KeyboardEvent;
      if (e.key !== 'Enter' || e.shiftKey || e.isComposing) return;
      e.preventDefault();
      check();
    });
  }
  const show = (text: string): void => {
    if (input.getAttribute('aria-invalid') === 'true' || host.isEditing()) return;
    if (input.value !== text) input.value = text;
  };
  return { message, check, show };
}
