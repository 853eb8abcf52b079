// Astro 5 + MDX with headlab. The integration prerenders every figure into the built pages (seen
// without JavaScript, replaced by the live widget without a layout shift); three settings, each for a reason:
import mdx from '@astrojs/mdx';
import { defineConfig } from 'astro/config';
import headlab from 'headlab/astro';

export default defineConfig({
  // The figures' column: the blog's body, at most 44rem wide with 1rem padding (src/styles/blog.css).
  integrations: [mdx(), headlab({ maxWidth: 704, margin: 16 })],
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
