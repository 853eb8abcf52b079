// <headlab-seed-grid src="../data/max-digit-seeds-0-9.json">: which findings survive a change
// of seed. A grid of claims × seeds, first from the file `headlab max-digit seeds --from A --to B`
// wrote (the native core), then, on request, from models trained in this page in Web Workers
// (worker task "max-digit-train" through the training widgets' TrainingJob, several seeds at once,
// one worker each, with a progress bar and Stop). Each
// column trained here is compared with the file's column for the same seed: "same as the CLI"
// when every claim agrees (integer counts exactly; accuracies are ratios of counts, so exactly too).
// Cells that differ from seed 0's value are tinted, so the robust rows read as one colour.
//
// Attributes: src (the seeds file; required), from, to (the seeds to train here; default: the
// file's range), steps (default 4000, the recipe's; only for quick demos and tests), workers (seeds
// trained at once, 1–8; default defaultWorkers()). Seeds are independent runs, so training them
// side by side changes no bit of any column, only how soon the grid fills.
// Events: `change` with { trained: seeds trained here, agree: seeds whose claims equal the file's, status }.
import { TrainingJob, type TrainingStatus } from './base/training-job.js';
import {
  accessor,
  type AttributeProperties,
  defineAttributes,
  el,
  HeadlabElement,
  integer,
  integerAttribute,
  MAX_SEED,
  setNumberAttribute,
  text,
  type WidgetFigure,
  WidgetInputError,
} from './base/headlab-element.js';
import { formatCount, formatAccuracy } from './chart/format.js';
import { tablesScene } from './chart/table-scene.js';
import type { MaxDigitAnalysisFile, MaxDigitClaims, MaxDigitSeedsFile } from './max-digit/model.js';
import { MAX_DIGIT_CSS, scrollBox } from './max-digit/widget.js';

/** trained and agree: seeds in ascending order. */
export interface SeedGridState {
  /** The sweep's status: 'training' from the first seed's start to the last seed's end. */
  status: TrainingStatus;
  trained: number[];
  agree: number[];
}

type SeedsFile = MaxDigitSeedsFile;

const LISTS = 111110;

/**
 * Seeds trained at once unless the `workers` attribute says otherwise: every core up to two, then
 * one core left for the page, at most four (each worker holds its own copy of the module, ~2 MB).
 */
export function defaultWorkers(cores: number | undefined): number {
  const n = Number.isInteger(cores) && cores! > 0 ? cores! : 1;
  return n <= 2 ? n : Math.min(4, n - 1);
}

/** "5", "5 and 6", "5, 6 and 7". */
function seedList(seeds: number[]): string {
  return seeds.length < 2 ? seeds.join('') : `${seeds.slice(0, -1).join(', ')} and ${seeds.at(-1)}`;
}

/** The grid's rows: what each cell says, and the value compared across seeds. */
const ROWS: { id: string; label: string; cell: (c: MaxDigitClaims) => string }[] = [
  { id: 'accuracy', label: 'accuracy', cell: (c) => formatAccuracy(c.accuracy, LISTS) },
  { id: 'ramps', label: 'every head’s score rises from 0 to 9', cell: (c) => (c.scores_monotone ? 'yes' : 'no') },
  { id: 'markers', label: 'markers score below every digit', cell: (c) => (c.markers_below_digits ? 'yes' : 'no') },
  {
    id: 'recruited',
    label: '(maximum, head) pairs with over half the attention on the maximum',
    cell: (c) => `${c.recruited_cells} of 40`,
  },
  {
    id: 'one-hot',
    label: 'every head one-hot on the maximum answers it',
    cell: (c) => (c.one_hot_exceptions.length === 0 ? 'always' : `not for ${c.one_hot_exceptions.join(', ')}`),
  },
  { id: 'default', label: 'every head on ANS answers', cell: (c) => String(c.default_answer) },
  {
    id: 'single-flip',
    label: 'heads that alone, pointed at the 4, change the answer',
    cell: (c) => (c.single_flips.length ? c.single_flips.join(', ') : 'none'),
  },
  { id: 'pair-flip', label: 'pairs of heads that, pointed at the 4, change it', cell: (c) => `${c.pair_flips.length} of 6` },
  { id: 'all-flip', label: 'all four heads pointed at the 4 answer', cell: (c) => String(c.all_heads_answer) },
  { id: 'one-ablated', label: 'worst accuracy with one head removed', cell: (c) => formatAccuracy(c.min_one_ablated_accuracy, LISTS) },
  { id: 'single-head', label: 'worst accuracy with one head kept alone', cell: (c) => formatAccuracy(c.min_single_head_accuracy, LISTS) },
  {
    id: 'directions',
    label: 'principal directions needed for every list (W_O / W_U)',
    cell: (c) => `${c.directions_w_o || '> 8'} / ${c.directions_w_u || '> 8'}`,
  },
  { id: 'angle-dot', label: 'maxima where angle and dot product pick the same digit', cell: (c) => `${c.angle_dot_agree} of 10` },
];

/** The parts build() makes (this.parts). */
interface SeedGridParts {
  table: HTMLTableElement;
  bar: HTMLProgressElement;
  progressText: HTMLSpanElement;
  trainButton: HTMLButtonElement;
  stopButton: HTMLButtonElement;
}

/** Claims × seeds from the file `headlab max-digit seeds` wrote; trains the seeds in Web Workers on request and compares. Attributes: src, from, to, steps, workers. Shared: from, to. */
export class HeadlabSeedGrid extends HeadlabElement<SeedGridState, SeedGridParts> {
  static attributes = defineAttributes({
    src: text({ property: false, doc: 'The seeds file `headlab max-digit seeds` wrote.' }),
    from: accessor<number>({ type: 'number', markup: 'Num', shared: true, doc: 'First seed shown (default the file’s first).' }),
    to: accessor<number>({ type: 'number', markup: 'Num', shared: true, doc: 'Last seed shown (default the file’s last).' }),
    steps: integer({ fallback: 4000, min: 1, max: 100000, doc: 'Training steps of each seed trained here.' }),
    workers: integer({
      fallback: () => defaultWorkers(globalThis.navigator?.hardwareConcurrency),
      min: 1,
      max: 8,
      doc: 'Web Workers training at once, 1–8 (default from the cores available).',
    }),
  });
  protected static needsCore = false;
  protected static goesLiveStaggered = false;
  protected static css = /* css */ `${MAX_DIGIT_CSS}
    table.grid th[scope="row"] { text-align: left; font-weight: normal; min-width: 12em; }
    table.grid thead th:first-child { text-align: left; }
    table.grid td { text-align: center; white-space: nowrap; }
    /* A phone: the claims column narrower and held at the left while the seeds scroll past it, so
       every seed can be read against its claim (3 or 4 seeds in view at 360 px, not 2). */
    .body { container-type: inline-size; }
    @container (max-width: 560px) {
      table.grid th[scope="row"] { min-width: 9em; position: sticky; left: 0; z-index: 1; background: var(--hl-panel); font-size: 0.85em; }
      table.grid thead th:first-child { position: sticky; left: 0; z-index: 1; background: var(--hl-panel); }
      table.grid td, table.grid thead th { padding-left: 0.3rem; padding-right: 0.3rem; }
    }
    table.grid td.differs { background: color-mix(in srgb, var(--hl-changed) 22%, transparent); }
    table.grid td.here { font-weight: 600; }
    table.grid tr.check td.same { color: var(--hl-fg); }
    table.grid tr.check td.mismatch { color: var(--hl-bad); font-weight: 700; }
    progress { width: 12rem; height: 1rem; accent-color: var(--hl-focus); }
    .train { display: flex; flex-wrap: wrap; gap: 0.4rem 0.8rem; align-items: center; }
  `;

  private file: SeedsFile | null = null;
  private loadFailure = '';
  /** One training job (one worker) per seed trained at once, made on the first train(). */
  private jobs: TrainingJob[] = [];
  private status: TrainingStatus = 'idle';
  private here = new Map<number, MaxDigitClaims>();
  private queue: number[] = [];
  /** The seed each job trains (-1 when idle) and its steps so far. */
  private running: number[] = [];
  private stepsDone: number[] = [];
  /** Seeds whose run was stopped before it ended (their columns stay the file's). */
  private interrupted: number[] = [];

  get from(): number {
    return integerAttribute(this, 'from', this.file?.seeds[0]?.seed ?? 0, 0, MAX_SEED);
  }
  set from(v: number) {
    setNumberAttribute(this, 'from', v);
  }
  get to(): number {
    return integerAttribute(this, 'to', this.file?.seeds.at(-1)?.seed ?? 9, 0, MAX_SEED);
  }
  set to(v: number) {
    setNumberAttribute(this, 'to', v);
  }

  /** Seeds trained here whose every claim equals the file's. */
  private agreeing(): number[] {
    return this.trainedSeeds().filter((s) => {
      const cli = this.file?.seeds.find((r) => r.seed === s)?.claims;
      return cli !== undefined && sameClaims(cli, this.here.get(s)!);
    });
  }

  private trainedSeeds(): number[] {
    return [...this.here.keys()].sort((a, b) => a - b);
  }

  protected readState(): SeedGridState {
    return { status: this.status, trained: this.trainedSeeds(), agree: this.agreeing() };
  }

  /**
   * Claims of a seed trained in this page (tests read them).
   * @internal
   */
  claimsHere(seed: number): MaxDigitClaims | undefined {
    return this.here.get(seed);
  }

  /** Trains the seeds from..to in the workers, `workers` at a time, in seed order. */
  train(): void {
    const from = this.from,
      to = this.to;
    if (to < from || to - from > 99) throw new WidgetInputError(`attribute to="${to}" must lie between from="${from}" and from + 99`);
    if (this.status === 'training') return;
    this.here.clear();
    this.interrupted = [];
    this.queue = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const n = Math.min(this.workers, this.queue.length);
    while (this.jobs.length < n)
      this.jobs.push(
        new TrainingJob(
          this,
          (text) => this.announce(text),
          () => this.requestRender(),
        ),
      );
    this.running = this.jobs.map(() => -1);
    this.stepsDone = this.jobs.map(() => 0);
    this.status = 'training';
    for (let j = 0; j < n; ++j) this.next(j);
    this.requestRender();
  }

  /** Asks every running seed to stop at its next chunk; the columns finished so far stay. */
  stop(): void {
    this.queue = [];
    for (const job of this.jobs) job.stop();
  }

  /** Starts job j on the next queued seed, or ends the sweep once every job is idle. */
  private next(j: number): void {
    const seed = this.queue.shift();
    if (seed === undefined) {
      this.running[j] = -1;
      if (this.running.some((s) => s >= 0)) return;
      this.finish();
      return;
    }
    this.running[j] = seed;
    this.stepsDone[j] = 0;
    type Trained = { progress: { steps_taken: number }; analysis: MaxDigitAnalysisFile | null };
    this.jobs[j].start<Trained>(
      'max-digit-train',
      { settings: { seed, steps: this.steps }, chunk: 200 },
      {
        progress: (detail) => {
          this.stepsDone[j] = detail.steps_taken as number;
          this.requestRender();
        },
        done: ({ value }) => {
          if (value.analysis) this.here.set(seed, value.analysis.claims);
          else this.interrupted.push(seed);
          this.next(j);
          this.requestRender();
        },
        // A failed job (its worker could not start, or crashed) ends the sweep: TrainingJob has
        // announced the message; the other seeds stop, and the sweep ends when they have.
        failed: () => {
          this.status = 'failed';
          this.stop();
          this.next(j);
        },
      },
    );
  }

  private finish(): void {
    if (this.status === 'failed') {
      this.emitChange();
      this.requestRender();
      return;
    }
    const trained = this.trainedSeeds();
    const agree = this.agreeing();
    if (this.interrupted.length) {
      this.status = 'stopped';
      const kept =
        trained.length === 0
          ? 'no column was trained'
          : trained.length === 1
            ? 'the column trained so far stays'
            : `the ${trained.length} columns trained so far stay`;
      this.announce(
        `Stopped during seed${this.interrupted.length > 1 ? 's' : ''} ${seedList(this.interrupted.sort((a, b) => a - b))}; ${kept}.`,
      );
    } else {
      this.status = 'done';
      this.announce(
        `Trained ${trained.length} seeds here; ${agree.length === trained.length ? 'every column is the same as the command line’s' : `seeds ${trained.filter((s) => !agree.includes(s)).join(', ')} differ from the command line`}.`,
      );
    }
    this.emitChange();
    this.requestRender();
  }

  disconnectedCallback(): void {
    for (const job of this.jobs) job.dispose();
    if (this.status === 'training') this.status = 'stopped';
    this.queue = [];
    super.disconnectedCallback();
  }

  protected build(): SeedGridParts {
    const src = this.getAttribute('src');
    if (!src) throw new WidgetInputError('a <headlab-seed-grid> needs src: the file `headlab max-digit seeds` wrote');
    const url = new URL(src, document.baseURI).href;
    void fetch(url)
      .then(async (r) => {
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
        const file = (await r.json()) as SeedsFile;
        if (!file || !Array.isArray(file.seeds) || file.seeds.some((s) => typeof s.seed !== 'number' || !s.claims))
          throw new Error('it is not a seeds file');
        this.file = file;
      })
      .catch((err: Error) => {
        this.loadFailure = `The seeds file ${src} could not be read: ${err.message}`;
      })
      .finally(() => this.requestRender());
    const row = el('div', { class: 'train' });
    const trainButton = el('button', { type: 'button' }, 'Train these seeds here');
    const stopButton = el('button', { type: 'button' }, 'Stop');
    this.listen(trainButton, 'click', () => this.train());
    this.listen(stopButton, 'click', () => this.stop());
    const bar = el('progress', { max: '1', value: '0', 'aria-label': 'Training progress over the seeds' });
    const progressText = el('span', { class: 'progress-text' });
    row.append(trainButton, stopButton, bar, progressText);
    const statusLine = this.statusRegion();
    const box = scrollBox('Claims across seeds');
    const table = el('table', { class: 'grid compact' });
    box.append(table);
    this.body.append(el('p', { class: 'title' }, 'What holds across seeds'), box, row, statusLine, this.exportControls());
    return { table, bar, progressText, trainButton, stopButton };
  }

  protected render(): void {
    if (this.loadFailure) throw new WidgetInputError(this.loadFailure);
    const file = this.file;
    const training = this.status === 'training';
    this.parts.trainButton.disabled = !file || training;
    this.parts.stopButton.disabled = !training;
    const n = Math.max(1, this.to - this.from + 1);
    const finished = this.here.size;
    this.parts.bar.max = n * this.steps;
    const active = this.running.map((seed, j) => ({ seed, steps: this.stepsDone[j] })).filter((r) => r.seed >= 0);
    this.parts.bar.value = Math.min(n * this.steps, finished * this.steps + (training ? active.reduce((sum, r) => sum + r.steps, 0) : 0));
    const workers = Math.min(this.workers, n);
    this.parts.progressText.textContent = training
      ? `${active.map((r) => `seed ${r.seed}: step ${r.steps}`).join(' · ')} of ${this.steps} · ${finished} of ${n} seeds done`
      : `${n} seeds × ${formatCount(this.steps)} steps in ${workers === 1 ? 'a background worker' : `${workers} background workers, ${workers} seeds at a time`}`;
    if (!file) {
      this.parts.table.replaceChildren(el('caption', {}, 'Loading the command line’s figures…'));
      return;
    }
    this.renderTable(file);
  }

  private renderTable(file: SeedsFile): void {
    const table = this.parts.table;
    table.replaceChildren();
    const seeds = file.seeds.map((s) => s.seed);
    table.createCaption().textContent = `Each column is one seed of the default recipe (${formatCount(file.settings.steps)} steps), as the command line (headlab max-digit seeds) computed it; a column trained here replaces it${this.here.size ? ' (bold)' : ''}. Tinted: differs from seed ${seeds[0]}.`;
    const head = table.createTHead().insertRow();
    head.append(el('th', { scope: 'col' }, 'claim'));
    for (const s of seeds) head.append(el('th', { scope: 'col' }, `seed ${s}`));
    const body = table.createTBody();
    const base = file.seeds[0].claims;
    for (const row of ROWS) {
      const tr = body.insertRow();
      tr.dataset.claim = row.id;
      tr.append(el('th', { scope: 'row' }, row.label));
      for (const { seed, claims } of file.seeds) {
        const shown = this.here.get(seed) ?? claims;
        const text = row.cell(shown);
        const td = el(
          'td',
          { class: `${text !== row.cell(base) ? 'differs' : ''}${this.here.has(seed) ? ' here' : ''}`.trim(), 'data-seed': String(seed) },
          text,
        );
        tr.append(td);
      }
    }
    if (this.here.size) {
      const tr = body.insertRow();
      tr.className = 'check';
      tr.append(el('th', { scope: 'row' }, 'trained here vs the command line'));
      for (const { seed, claims } of file.seeds) {
        const mine = this.here.get(seed);
        const same = mine ? sameClaims(mine, claims) : null;
        tr.append(
          el(
            'td',
            {
              class: same === null ? '' : same ? 'same' : 'mismatch',
              'data-seed': String(seed),
              'data-agree': same === null ? '' : String(same),
            },
            same === null ? '–' : same ? 'same' : 'differs',
          ),
        );
      }
    }
  }

  protected summarize(): string {
    if (!this.file) return 'The cross-seed grid is loading.';
    const seeds = this.file.seeds;
    return `Claims across seeds ${seeds[0].seed} to ${seeds.at(-1)!.seed}: ${ROWS.map((r) => `${r.label}: ${seeds.map((s) => r.cell(this.here.get(s.seed) ?? s.claims)).join(', ')}`).join('; ')}.`;
  }

  figures(): WidgetFigure[] {
    return [
      {
        name: 'grid',
        label: 'Claims across seeds',
        scene: () => tablesScene([this.parts.table], this.themeColours(), 'Claims across seeds'),
      },
    ];
  }
}

/** Every claim equal (arrays element by element). */
export function sameClaims(a: MaxDigitClaims, b: MaxDigitClaims): boolean {
  return JSON.stringify(normalise(a)) === JSON.stringify(normalise(b));
}

function normalise(c: MaxDigitClaims): unknown[] {
  return Object.keys(c)
    .sort()
    .map((k) => (c as unknown as Record<string, unknown>)[k]);
}

export interface HeadlabSeedGrid extends AttributeProperties<typeof HeadlabSeedGrid.attributes> {}
