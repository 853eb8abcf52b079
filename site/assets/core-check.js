// Fills the core-check table from the WASM core (no inline script: strict CSP).
import { getCore, identity, matrix, at, toRows } from '../headlab/headlab.js';

const out = (key, text) => {
  document.querySelector(`[data-out="${key}"]`).textContent = text;
};
const fmt = (x) => String(Math.round(x * 1e12) / 1e12);

try {
  const core = await getCore();
  const I = identity(2);
  const base = core.attention({ x: I, w_q: I, w_k: I, w_v: I });
  out('version', core.version());
  out('q1k1', fmt(at(base.dot_products, 0, 0)));
  out('q1k2', fmt(at(base.dot_products, 0, 1)));
  out('weights', `[${[at(base.weights, 0, 0), at(base.weights, 0, 1)].map(fmt).join(', ')}]`);
  const diag = core.attention({
    x: I,
    w_q: I,
    w_k: I,
    w_v: matrix([
      [2, 0],
      [0, -3],
    ]),
  });
  out(
    'values',
    toRows(diag.v)
      .map((r) => `[${r.map(fmt).join(', ')}]`)
      .join(', '),
  );
} catch (err) {
  out('version', `error: ${err.message}`);
}

// The same core inside the Web Worker (the path training takes).
try {
  const { WorkerClient } = await import('../headlab/headlab.js');
  const client = new WorkerClient();
  const { value } = await client.run('version', {}).promise;
  out('worker', value);
  client.terminate();
} catch (err) {
  out('worker', `error: ${err.message}`);
}
