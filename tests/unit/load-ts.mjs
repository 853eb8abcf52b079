// Imports a widgets/*.ts module in Node: esbuild bundles it (as the site build does) and the
// bundle is imported from a data: URL. Only for modules that touch no browser global at load.
import * as esbuild from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function importTs(relativePath) {
  const out = await esbuild.build({
    entryPoints: [path.join(root, relativePath)],
    bundle: true,
    write: false,
    format: 'esm',
    target: ['es2022'],
    platform: 'neutral',
    logLevel: 'error',
  });
  const code = out.outputFiles[0].text;
  return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
}
