// A training-loss curve on a log-scale y axis as a Scene (widgets/chart/scene.ts).
// The feature-recovery loss falls from about 1 to about 1e-31, so the axis spans whole
// decades: from 10^0 (or above, if the loss starts higher) down to at least 10^-32.
import { formatMagnitude } from './format.js';
import { rgbText, type ResolvedColours } from './palette.js';
import type { Scene, Shape } from './scene.js';

export interface LossCurveInput {
  /** Loss of step 1, 2, … (any length ≤ steps). */
  losses: ArrayLike<number>;
  /** Steps of the whole run: the x axis spans [0, steps]. */
  steps: number;
  width: number;
  height: number;
  colours: ResolvedColours;
  title: string;
  /** The y axis's decades [bottom, top]; default lossDecades(losses) (down to LOSS_AXIS_FLOOR_DECADE at least). */
  decades?: [number, number];
}

/** Lowest decade the axis always shows: the draft's final losses are ~1e-31. */
export const LOSS_AXIS_FLOOR_DECADE = -32;

// The y axis's title is a line of its own above the plot, left-aligned: the chart's title at y 12,
// the axis title at y 29, the top decade label at y 46 (one line of 12 px text apart, with 3 px to
// spare). Rotated in the left margin, the axis title ran into the decade labels wherever chart text
// is drawn larger than the 11 units it was laid out for: chart text takes the page's
// --headlab-chart-font-size (12 px by default) and is scaled back up in an SVG drawn narrower than
// its viewBox (the training replay's still at 360 px). The left margin holds the widest decade
// label, "10⁻³²" (about 2.6 em: 31 px at 12 px), ending 6 units before the axis.
const MARGIN = { left: 48, right: 14, top: 46, bottom: 40 };
/** Baseline middle of the y axis's title. */
const Y_TITLE_Y = 29;
const SUPERSCRIPT: Record<string, string> = {
  '-': '⁻',
  0: '⁰',
  1: '¹',
  2: '²',
  3: '³',
  4: '⁴',
  5: '⁵',
  6: '⁶',
  7: '⁷',
  8: '⁸',
  9: '⁹',
};

/** "10⁻³²" for decade −32. */
export function decadeLabel(decade: number): string {
  return `10${String(decade)
    .split('')
    .map((ch) => SUPERSCRIPT[ch])
    .join('')}`;
}

/**
 * The y axis's decades [bottom, top] for these losses (non-positive losses ignored), the bottom at
 * `floor` or lower (a run still training keeps its axis as its loss falls; a finished run passes
 * Infinity, so a run that never fell far is drawn on its own decades: a leap to 57 stands out).
 */
export function lossDecades(losses: ArrayLike<number>, floor = LOSS_AXIS_FLOOR_DECADE): [number, number] {
  let lo = Infinity,
    hi = -Infinity;
  for (let i = 0; i < losses.length; i++) {
    const x = losses[i];
    if (x > 0 && Number.isFinite(x)) {
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
  }
  const top = Math.max(0, Number.isFinite(hi) ? Math.ceil(Math.log10(hi)) : 0);
  const bottom = Math.min(floor, Number.isFinite(lo) ? Math.floor(Math.log10(lo)) : 0, top - 1);
  return [bottom, top];
}

/** Below this decade a run has learned: its axis is the standard one, down to 10⁻³². */
const LEARNED_DECADE = -8;

/**
 * The axis of a finished run: lossDecades' (down to LOSS_AXIS_FLOOR_DECADE) for a run whose loss
 * fell below 10^LEARNED_DECADE, so converged runs share one axis; otherwise the run's own decades,
 * so a run that did not learn (learning rate 3 leaping to 57) is not a sliver above empty decades.
 */
export function finishedRunDecades(losses: ArrayLike<number>): [number, number] {
  // One pass: lossDecades(losses) is the same decades with the bottom taken down to the floor.
  const own = lossDecades(losses, Infinity);
  return own[0] < LEARNED_DECADE ? [Math.min(LOSS_AXIS_FLOOR_DECADE, own[0]), own[1]] : own;
}

/** Round step numbers for about `target` ticks over [0, max]: 1, 2, 2.5 or 5 × 10^k apart. */
export function niceTicks(max: number, target = 5): number[] {
  if (!(max > 0)) return [0];
  const raw = max / target;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  const ticks: number[] = [];
  for (let t = 0; t <= max + 1e-9 * max; t += step) ticks.push(Math.round(t * 1e6) / 1e6);
  return ticks;
}

/**
 * The step axis of a training chart whose plot is plotW × plotH units from (left, top): a tick and a
 * label (`label(t)`) at round steps along the bottom (3 on a chart narrower than 420 units, else 5),
 * then the left and bottom axis lines, all in `muted`.
 */
export function stepAxisShapes(o: {
  left: number;
  top: number;
  plotW: number;
  plotH: number;
  width: number;
  steps: number;
  x: (step: number) => number;
  label: (step: number) => string;
  muted: string;
}): Shape[] {
  const { left, top, plotW, plotH, muted } = o;
  const shapes: Shape[] = [];
  for (const t of niceTicks(o.steps, o.width < 420 ? 3 : 5)) {
    const xx = o.x(t);
    shapes.push({ kind: 'line', x1: xx, y1: top + plotH, x2: xx, y2: top + plotH + 4, stroke: muted, width: 1 });
    shapes.push({ kind: 'text', x: xx, y: top + plotH + 13, text: o.label(t), fill: muted, size: 11, anchor: 'middle' });
  }
  shapes.push({ kind: 'line', x1: left, y1: top, x2: left, y2: top + plotH, stroke: muted, width: 1 });
  shapes.push({ kind: 'line', x1: left, y1: top + plotH, x2: left + plotW, y2: top + plotH, stroke: muted, width: 1 });
  return shapes;
}

export function lossCurveScene(input: LossCurveInput): Scene {
  const { losses, width, height, colours: c } = input;
  const steps = Math.max(1, input.steps);
  const fg = rgbText(c.fg),
    muted = rgbText(c.muted),
    rule = rgbText(c.rule);
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const [bottom, top] = input.decades ?? lossDecades(losses);
  const x = (step: number) => MARGIN.left + (step / steps) * plotW;
  const y = (loss: number) => {
    const d = loss > 0 && Number.isFinite(loss) ? Math.max(bottom, Math.min(top, Math.log10(loss))) : bottom;
    return MARGIN.top + ((top - d) / (top - bottom)) * plotH;
  };
  const shapes: Shape[] = [];
  shapes.push({ kind: 'text', x: 2, y: 12, text: input.title, fill: fg, size: 13, weight: 'bold' });

  // Decade ticks on every decade; labels on multiples of `every` decades (10⁰, 10⁻⁴, …), at least 13 px apart.
  const span = top - bottom;
  const every = [1, 2, 4, 8, 16].find((k) => (plotH * k) / span >= 13) ?? 16;
  for (let d = top; d >= bottom; d--) {
    const yy = MARGIN.top + ((top - d) / span) * plotH;
    if (d % every === 0) {
      shapes.push({ kind: 'line', x1: MARGIN.left, y1: yy, x2: MARGIN.left + plotW, y2: yy, stroke: rule, width: 1 });
      shapes.push({ kind: 'text', x: MARGIN.left - 6, y: yy, text: decadeLabel(d), fill: muted, size: 11, anchor: 'end' });
    }
    shapes.push({ kind: 'line', x1: MARGIN.left - 3, y1: yy, x2: MARGIN.left, y2: yy, stroke: muted, width: 1 });
  }
  shapes.push(...stepAxisShapes({ ...MARGIN, plotW, plotH, width, steps, x, label: String, muted }));
  shapes.push({ kind: 'text', x: MARGIN.left + plotW / 2, y: height - 8, text: 'training step', fill: muted, size: 11, anchor: 'middle' });
  shapes.push({ kind: 'text', x: 2, y: Y_TITLE_Y, text: 'loss (MSE, log scale)', fill: muted, size: 11 });

  shapes.push({
    kind: 'polyline',
    points: curvePoints(losses, x, y, plotW, `${steps} ${plotW} ${plotH} ${bottom} ${top}`),
    stroke: rgbText(c.focus),
    width: 1.5,
  });
  const n = losses.length;
  if (n > 0 && width >= 460) {
    // narrower: the title needs the line; the widget's progress text has the number
    shapes.push({
      kind: 'text',
      x: MARGIN.left + plotW,
      y: 12,
      anchor: 'end',
      fill: muted,
      size: 11,
      text: `step ${n}: ${formatMagnitude(losses[n - 1])}`,
    });
  }
  return { width, height, background: rgbText(c.panel), title: input.title, shapes };
}

/**
 * The last curve drawn point by point: its losses (the caller's array), the axes it was drawn on
 * and one point per loss. A training redraws its curve on every progress message with the same
 * array grown by a chunk of steps, so the next call on the same array and axes keeps these points
 * and adds only the new steps' (the points are never changed once made, and the text of each is
 * kept by the scene's drawing: widgets/chart/scene.ts). A caller that changes a loss passes a new
 * array (the widgets do: a new run, a finished run and a replay's snapshot each have their own).
 */
let lastCurve: { losses: ArrayLike<number>; axes: string; points: (readonly [number, number])[] } | null = null;

/**
 * The curve's points. Beyond four points per pixel column, each column keeps its lowest and
 * highest loss (in step order), so a long run draws in bounded time and keeps its spread.
 * `axes` names the x and y mappings (steps, plot size, decades).
 */
function curvePoints(
  losses: ArrayLike<number>,
  x: (s: number) => number,
  y: (l: number) => number,
  plotW: number,
  axes: string,
): (readonly [number, number])[] {
  const n = losses.length;
  if (n <= 4 * plotW) {
    const kept =
      lastCurve && lastCurve.losses === losses && lastCurve.axes === axes && lastCurve.points.length <= n ? lastCurve.points : [];
    const points = kept.slice();
    for (let i = points.length; i < n; i++) points.push([x(i + 1), y(losses[i])]);
    lastCurve = { losses, axes, points };
    return points;
  }
  const points: [number, number][] = [];
  let column = -1,
    lo = 0,
    hi = 0,
    loAt = 0,
    hiAt = 0;
  const flush = () => {
    if (column < 0) return;
    const pair: [number, number][] = [
      [x(loAt + 1), y(losses[loAt])],
      [x(hiAt + 1), y(losses[hiAt])],
    ];
    if (hiAt < loAt) pair.reverse();
    points.push(...pair);
  };
  for (let i = 0; i < n; i++) {
    const col = Math.floor(x(i + 1));
    const v = losses[i];
    if (col !== column) {
      flush();
      column = col;
      lo = hi = v;
      loAt = hiAt = i;
    } else {
      if (v < lo) {
        lo = v;
        loAt = i;
      }
      if (v > hi) {
        hi = v;
        hiAt = i;
      }
    }
  }
  flush();
  return points;
}
