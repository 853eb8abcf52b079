// A recorded training run: the JSON `headlab model train --history-out` writes (TrainingHistory in
// formats/transformer.d.ts), read for <headlab-transformer-training history="…">. No DOM here, so the
// reader's checks run in Node too (tests/unit/training-history.test.mjs).
import { MAX_SEED } from '../base/core-limits.js';
import { WidgetInputError } from '../base/errors.js';

/** One point of the trace: what a progress message of the worker carries. */
export interface TrainingTracePoint {
  step: number;
  /** Loss of the last step taken (nats); NaN at step 0. */
  loss: number;
  in_context_loss: number;
  /** L × H attention masses. */
  previous_token: number[][];
  induction: number[][];
}

/** The package's earlier name of TrainingTracePoint. */
export type TransformerTrainingTracePoint = TrainingTracePoint;

/** Size limit of a history file (docs/limits.md): 51 points of 2 × 4 heads are ≈ 22 kB. */
export const MAX_HISTORY_BYTES = 1 << 20;

/** A recorded run, as read from a history file. */
export interface RecordedRun {
  seed: number;
  steps: number;
  trace: TrainingTracePoint[];
}

/**
 * Reads a history file's text (the JSON `headlab model train --history-out` writes); throws
 * WidgetInputError naming `file` and the field that is wrong. Steps rise from 0; every score is an
 * attention mass in [0, 1] of one L × H shape; losses are finite (none at step 0).
 */
export function parseTrainingHistory(text: string, file: string): RecordedRun {
  const bad = (what: string) => new WidgetInputError(`history file ${file}: ${what}`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw bad(`not JSON (${(err as Error).message})`);
  }
  const o = doc as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw bad('expected an object');
  const integer = (v: unknown, name: string, max: number) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)
      throw bad(`"${name}" must be an integer from 0 to ${max}, got ${JSON.stringify(v)}`);
    return v;
  };
  const seed = integer(o.seed, 'seed', MAX_SEED);
  const steps = integer(o.steps, 'steps', 20000);
  if (!Array.isArray(o.points) || o.points.length < 1 || o.points.length > 20001)
    throw bad('"points" must be an array of 1 to 20,001 points');
  let shape: [number, number] | null = null;
  const masses = (v: unknown, name: string): number[][] => {
    if (!Array.isArray(v) || v.length < 1 || v.length > 64) throw bad(`${name} must be an array of layers`);
    const rows = v.map((row) => {
      if (!Array.isArray(row) || row.length < 1 || row.length > 64) throw bad(`${name} must hold one array of heads per layer`);
      return row.map((x) => {
        if (typeof x !== 'number' || !(x >= 0 && x <= 1)) throw bad(`${name} holds ${JSON.stringify(x)}, not an attention mass in [0, 1]`);
        return x;
      });
    });
    shape ??= [rows.length, rows[0].length];
    if (rows.length !== shape[0] || rows.some((r) => r.length !== shape![1]))
      throw bad(`${name} is not ${shape[0]} × ${shape[1]} like the first point`);
    return rows;
  };
  let last = -1;
  const trace = (o.points as unknown[]).map((raw, i): TrainingTracePoint => {
    const p = raw as Record<string, unknown>;
    const at = `points[${i}]`;
    if (!p || typeof p !== 'object') throw bad(`${at} must be an object`);
    const step = integer(p.step, `${at}.step`, steps);
    if (step <= last) throw bad(`${at}.step = ${step} does not follow ${last}`);
    if ((i === 0) !== (step === 0)) throw bad(`the first point, and only it, is step 0`);
    last = step;
    const finite = (v: unknown, name: string) => {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
        throw bad(`${at}.${name} must be a finite loss ≥ 0, got ${JSON.stringify(v)}`);
      return v;
    };
    return {
      step,
      loss: step === 0 ? NaN : finite(p.loss, 'loss'),
      in_context_loss: finite(p.in_context_loss, 'in_context_loss'),
      previous_token: masses(p.previous_token, `${at}.previous_token`),
      induction: masses(p.induction, `${at}.induction`),
    };
  });
  return { seed, steps, trace };
}
