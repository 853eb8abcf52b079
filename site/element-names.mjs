// The package's elements by name: one entry point each, widgets/headlab-<name>-define.ts → <name>.js.
// Read by the site build (its entry points, each page's elements) and by the snapshots (the
// stylesheet that reserves every element's box), so neither imports the other for it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The elements with their own entry point: widgets/headlab-<name>-define.ts → <name>, sorted. */
export function elementNames() {
  return fs
    .readdirSync(path.join(root, 'widgets'))
    .map((f) => /^headlab-(.+)-define\.ts$/.exec(f)?.[1])
    .filter(Boolean)
    .sort();
}
