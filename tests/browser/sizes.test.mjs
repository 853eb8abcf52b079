// Download budget: the first article's page must stay under FIRST_ARTICLE_BUDGET bytes of
// gzip (level 9) JS + WASM (weights excluded), counted by bench/sizes.mjs over the built
// site: the page's module script, every chunk it imports statically, the worker entry and
// the .wasm. Chunks imported dynamically (a lazily loaded view) are not counted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { siteSizes, staticImports } from '../../bench/sizes.mjs';

/** 150 KB: the target for JS + WASM of the first article (measured ~107 KB when set). */
const FIRST_ARTICLE_BUDGET = 150 * 1024;
const FIRST_ARTICLE = 'articles/projections-matching-and-content.html';

test(`the first article downloads at most ${FIRST_ARTICLE_BUDGET / 1024} KB gzip of JS + WASM`, () => {
  const { pages, files } = siteSizes();
  const page = pages.find((p) => p.page === FIRST_ARTICLE);
  assert.ok(page, `no ${FIRST_ARTICLE} in the built site`);
  const wasm = files.find((f) => f.file === 'headlab/headlab_core.wasm');
  assert.equal(page.wasm, wasm.gzip, 'the page counts headlab_core.wasm and not the max-digit module');
  assert.ok(page.files.includes('headlab/headlab.js'));
  console.log(`# ${FIRST_ARTICLE}: JS ${page.js} B + WASM ${page.wasm} B = ${page.total} B gzip (budget ${FIRST_ARTICLE_BUDGET} B)`);
  assert.ok(page.total <= FIRST_ARTICLE_BUDGET, `${page.total} B > ${FIRST_ARTICLE_BUDGET} B`);
});

test('a chunk reached only by a dynamic import is not part of a page download', () => {
  const minified = 'import{a as b}from"./chunk-AAA.js";import"./side.js";export{c}from"./re.js";const v=()=>import("./view-3d-BBB.js");';
  assert.deepEqual(staticImports(minified).sort(), ['./chunk-AAA.js', './re.js', './side.js']);
});
