// Astro 5 + MDX with headlab. Three settings, each for a reason:
import mdx from '@astrojs/mdx';
import { defineConfig } from 'astro/config';

export default defineConfig({
  integrations: [mdx()],
  build: {
    // Astro inlines small stylesheets as <style>, which a `style-src 'self'` CSP refuses.
    inlineStylesheets: 'never',
  },
  vite: {
    // The package's worker imports a shared chunk: Vite must emit workers as ES modules
    // (without this: Invalid value "iife" for option "worker.format").
    worker: { format: 'es' },
    // Small scripts would be inlined into the page, which `script-src 'self'` refuses.
    build: { assetsInlineLimit: 0 },
    // The dev server's pre-bundling would move the modules away from their .wasm and data.
    optimizeDeps: { exclude: ['headlab'] },
  },
});
