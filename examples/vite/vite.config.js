// No import of 'vite' here, so the config also loads when vite runs from another folder's node_modules (the test does).
import headlab from 'headlab/vite';

export default {
  // At `vite build`, every figure of index.html is prerendered into it (headlab/vite: a picture
  // and a summary a reader sees without JavaScript; the live widget replaces it in place). The
  // figures' column is the page's body (8 px margins, no maximum): for a narrower column say so,
  // headlab({ maxWidth: 704, margin: 16 }), or the pictures are drawn wider than the widgets.
  plugins: [headlab()],
  // The package's worker imports a shared chunk: Vite must emit workers as ES modules.
  worker: { format: 'es' },
  // Pre-bundling (dev server only) would move the bundle away from its .wasm; serve the package as is.
  optimizeDeps: { exclude: ['headlab'] },
  build: { target: 'es2022' },
};
