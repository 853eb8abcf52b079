// What the batch figures share (<headlab-attribution-patching>, <headlab-path-patching>,
// <headlab-circuit-faithfulness>): the batch of generated prompt pairs their attributes name, the
// numbers written in their readouts, and the worker's refusals kept per model and batch.
import { integerAttribute, WidgetInputError } from '../base/headlab-element.js';

/** A batch of generated prompt pairs: the generator's task, how many pairs, and its seed. */
export interface PairsBatch {
  task: 'induction' | 'max-digit';
  count: number;
  seed: number;
}

/**
 * The batch named by `host`'s pairs-task ("induction" | "max-digit", default induction), count (1 to
 * 1024, default 64) and pairs-seed (default 0): a bad one throws WidgetInputError naming the attribute
 * and its bound (core/prompt_pairs.hpp kMaxPromptPairs).
 */
export function pairsBatch(host: Element): PairsBatch {
  const raw = host.getAttribute('pairs-task');
  const task = raw === null || raw.trim() === '' ? 'induction' : raw;
  if (task !== 'induction' && task !== 'max-digit') {
    const shown = task.length > 40 ? `${task.slice(0, 40)}…` : task;
    throw new WidgetInputError(`attribute pairs-task="${shown}" must be induction or max-digit`);
  }
  return { task, count: integerAttribute(host, 'count', 64, 1, 1024), seed: integerAttribute(host, 'pairs-seed', 0, 0, 4294967295) };
}

/** `v` to `digits` decimals, trailing zeros kept (numbers in a list read alike), a true minus sign, no "−0.000". */
export function fixed(v: number, digits: number): string {
  const text = v.toFixed(digits);
  return /^-0\.?0*$/.test(text) ? text.slice(1) : text.replace('-', '−');
}

/** The core's message for each batch the worker refused, per (model version, key); at most 64 kept. */
export class WorkerRefusals {
  private readonly messages = new Map<string, string>();

  remember(version: number, key: string, message: string): void {
    if (this.messages.size > 64) this.messages.clear();
    this.messages.set(`${version}|${key}`, message);
  }

  of(version: number, key: string): string | undefined {
    return this.messages.get(`${version}|${key}`);
  }
}
