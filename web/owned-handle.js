// The one wrapper of an embind handle (docs/conventions.md: a class_ handle never escapes the JS
// layer). web/<model>.js classes extend OwnedHandle, or OwnedTrainer for the trainer protocol of
// docs/model-pattern.md; the handle itself is reachable only through `live`, which only web/
// modules import.
import { HeadlabError, unwrap } from './errors.js';

/** owner → { handle, disposed: the message a call after dispose() throws }. */
const owned = new WeakMap();

/**
 * Runs start(handle) on a fresh handle and returns its value; when start throws, the handle is
 * freed and the error rethrown, so a failed constructor leaks nothing. Call before super().
 */
export function started(handle, start) {
  try {
    return start(handle);
  } catch (err) {
    handle.delete();
    throw err;
  }
}

/** The owner's handle; throws HeadlabError (the owner's `disposed` message) once it was disposed. */
export function live(owner) {
  const entry = owned.get(owner);
  if (!entry || entry.handle === null) throw new HeadlabError(entry?.disposed ?? 'no live handle');
  return entry.handle;
}

export class OwnedHandle {
  /** `disposed`: the message of a call after dispose(), naming the object and the remedy. */
  constructor(handle, disposed) {
    owned.set(this, { handle, disposed });
  }

  get disposed() {
    return owned.get(this).handle === null;
  }

  /** Frees the WASM-side object. Safe to call twice; any later use throws HeadlabError. */
  dispose() {
    const entry = owned.get(this);
    if (entry.handle !== null) {
      entry.handle.delete();
      entry.handle = null;
    }
  }
}

/** A trainer handle in the trainer protocol: step(n), stop() and the last progress (a copy). */
export class OwnedTrainer extends OwnedHandle {
  #progress;

  constructor(handle, disposed, progress) {
    super(handle, disposed);
    this.#progress = progress;
  }

  /** The last progress: { steps_taken, steps_total, loss, done, … } (after construction: 0 steps taken). */
  get progress() {
    return { ...this.#progress };
  }

  /** Advances up to n steps (default 1); the same bits however the steps are chunked. */
  step(n = 1) {
    this.#progress = unwrap(live(this).step(n));
    return this.progress;
  }

  /** Ends training early: done from now on; result() holds the steps taken so far. */
  stop() {
    this.#progress = unwrap(live(this).stop());
    return this.progress;
  }
}
