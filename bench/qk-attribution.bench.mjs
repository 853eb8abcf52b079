// QK attribution in WASM under Node: one head's T × T table (every query's score split over every
// key, core/qk_attribution.hpp) for the benchmark model of bench/transformer.bench.mjs (2 layers × 8
// heads, d_model 128, d_head 16) at T = 64, layer 1 (S = 11 sources: 121 parts per cell, 2,080
// cells), as the worker task 'transformer-qk-attribution' computes it; and what a click on a cell of
// <headlab-qk-attribution> then costs on the page: reading that cell's S × S parts from the table and
// finding the largest (the figure's splitOf, without drawing). Median of HEADLAB_BENCH_RUNS (default
// 5) runs after one warm-up, wall and CPU. Prints figures; not a test. Target: the table under 50 ms.
import os from 'node:os';
import { wasmTransformerCore } from '../tests/wasm/helpers.mjs';
import { rowViews } from '../web/matrix.js';
import { medianCpuMs, medianMs } from './median.mjs';
import { BENCH_MODEL, benchRequest } from './transformer.bench.mjs';

const RUNS = Number(process.env.HEADLAB_BENCH_RUNS) || 5;
const TABLE_TARGET_MS = 50;

/** { table: { wall, cpu } ms, cell: { wall, cpu } µs per cell read, bytes of the table }. */
export async function qkAttributionFigures() {
  const core = await wasmTransformerCore();
  const trainer = core.createTransformerTrainer({ model: BENCH_MODEL, steps: 1 });
  const model = trainer.model();
  trainer.dispose();
  try {
    let k = 0;
    const table = () => model.qkAttributionTable(benchRequest(++k % 16).prompt, 1, 0);
    for (let i = 0; i < 3; i++) table();
    const figure = { wall: medianMs(RUNS, table, { warmup: true }), cpu: medianCpuMs(RUNS, table) };
    const t = table();
    const T = t.positions,
      S = t.sources.length;
    // 2,080 cells read one after another: the split of cell (i, j) as S row views and its largest part.
    const readAll = () => {
      let sum = 0;
      for (let i = 0; i < T; i++) {
        for (let j = 0; j <= i; j++) {
          const rows = rowViews(t.parts[i][j]);
          let best = 0;
          for (let r = 0; r < S; r++) for (let c = 0; c < S; c++) if (Math.abs(rows[r][c]) > best) best = Math.abs(rows[r][c]);
          sum += best;
        }
      }
      return sum;
    };
    const cells = (T * (T + 1)) / 2;
    const cell = { wall: (1000 * medianMs(RUNS, readAll, { warmup: true })) / cells, cpu: (1000 * medianCpuMs(RUNS, readAll)) / cells };
    return { table: figure, cell, bytes: t.parts[0][0].data.buffer.byteLength + t.scores.data.byteLength, T, S };
  } finally {
    model.dispose();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const load = os.loadavg()[0].toFixed(1);
  const f = await qkAttributionFigures();
  const verdict = (x) =>
    `${x.toFixed(2)} ms = ${(x / TABLE_TARGET_MS).toFixed(2)}× the ${TABLE_TARGET_MS} ms target, ${x < TABLE_TARGET_MS ? 'met' : 'NOT met'}`;
  console.log(
    `QK attribution in WASM (2 layers × 8 heads, d_model 128, d_head 16; T = ${f.T}, S = ${f.S}), median of ${RUNS}, load average ${load}:`,
  );
  console.log(`  one head's T × T table (${(f.bytes / 1e6).toFixed(2)} MB): CPU ${verdict(f.table.cpu)}; wall ${verdict(f.table.wall)}`);
  console.log(
    `  a click: one cell's ${f.S} × ${f.S} parts read from the table, largest found: ${f.cell.cpu.toFixed(2)} µs CPU, ${f.cell.wall.toFixed(2)} µs wall`,
  );
}
