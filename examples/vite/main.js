// Importing the package registers every headlab-* element; Vite follows the bundle's
// new URL('headlab_core.wasm', import.meta.url) and new Worker(new URL(...)) and emits both.
import { getCore } from 'headlab';

document.querySelector('#ablation').addEventListener('change', (e) => {
  document.querySelector('#weights').textContent = e.detail.weights.map((w) => w.toFixed(4)).join(', ');
});

// The same core the widgets use, for a page's own computations.
getCore().then((core) => {
  document.documentElement.dataset.coreVersion = core.version();
});
