// No import of 'vite' here, so the config also loads when vite runs from another folder's node_modules (the test does).
export default {
  // The package's worker imports a shared chunk: Vite must emit workers as ES modules.
  worker: { format: 'es' },
  // Pre-bundling (dev server only) would move the bundle away from its .wasm; serve the package as is.
  optimizeDeps: { exclude: ['headlab'] },
  build: { target: 'es2022' },
};
