// Prose state links (<a class="state-link" href="#<id>.<attr>=…">) set a figure's shared state:
// the attributes they name, and every other shared attribute is removed (widgets/base/
// share-state.ts). A link that leaves out a shared attribute the author wrote on the figure
// therefore resets it to the element's default, which the prose around it does not expect (an
// "ablate these heads" link that also swapped the article's prompt for the model's default).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { elementClasses, tagOf } from '../../site/element-tables.mjs';
import { root } from '../browser/helpers.mjs';

const PAGES = path.join(root, 'site/pages');

const classes = await elementClasses();
/** The element class of `tag`. */
const classOf = (tag) => Object.entries(classes).find(([name]) => tagOf(name) === tag)?.[1];
/** Shared attributes of each element, from its attribute table (`shared: true`). */
function sharedAttributes(tag) {
  return classOf(tag)?.sharedAttributes ?? [];
}

/** The page's HTML files, relative to site/pages. */
function pages(dir = PAGES) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'data' ? [] : pages(p);
    return d.name.endsWith('.html') ? [p] : [];
  });
}

const decode = (s) => decodeURIComponent(s.replace(/&amp;/g, '&').replace(/\+/g, ' '));

test('every prose state link names each shared attribute its page wrote on the figure', () => {
  let links = 0;
  const missing = [];
  for (const file of pages()) {
    const html = fs.readFileSync(file, 'utf8');
    const elements = new Map();
    for (const m of html.matchAll(/<(headlab-[a-z-]+)\s([^>]*)>/g)) {
      const id = /\bid="([^"]+)"/.exec(m[2])?.[1];
      if (!id || !/\bshare-state\b/.test(m[2])) continue;
      const written = [...m[2].matchAll(/([a-z-]+)="/g)].map((a) => a[1]);
      elements.set(id, { tag: m[1], written });
    }
    for (const m of html.matchAll(/class="state-link" href="#([^"]*)"/g)) {
      links++;
      const entries = m[1].replace(/&amp;/g, '&').split('&');
      const byId = new Map();
      for (const e of entries) {
        const [key] = decode(e).split('=');
        const dot = key.indexOf('.');
        const id = key.slice(0, dot);
        if (!byId.has(id)) byId.set(id, new Set());
        byId.get(id).add(key.slice(dot + 1));
      }
      for (const [id, named] of byId) {
        const target = elements.get(id);
        assert.ok(target, `${path.relative(root, file)}: state link #${m[1]} names #${id}, no shared-state figure on the page`);
        const shared = sharedAttributes(target.tag);
        for (const a of target.written)
          if (shared.includes(a) && !named.has(a)) missing.push(`${path.relative(root, file)}: #${m[1].slice(0, 60)} resets ${id}'s ${a}`);
      }
    }
  }
  assert.ok(links >= 19, `the pages' state links were found (${links})`);
  assert.deepEqual(missing, []);
});

test('no element shares a file location through the URL hash (a link must not make a page fetch)', () => {
  // The attributes that name a file the element downloads: the model sources' files, the
  // max-digit figures' data, the batch figures' pairs file.
  const LOCATIONS = ['src', 'config', 'weights', 'tokenizer', 'data', 'pairs'];
  const tags = fs
    .readdirSync(path.join(root, 'widgets'))
    .filter((f) => /^headlab-[a-z-]+\.ts$/.test(f) && !f.endsWith('-define.ts'))
    .map((f) => f.slice(0, -3));
  assert.ok(tags.length >= 26, `${tags.length} elements`);
  const shared = tags.flatMap((tag) =>
    sharedAttributes(tag)
      .filter((a) => LOCATIONS.includes(a))
      .map((a) => `${tag} ${a}`),
  );
  assert.deepEqual(shared, []);
  // The batch figures do read a file location: observed, never shared.
  for (const tag of [
    'headlab-transformer-patching',
    'headlab-attribution-patching',
    'headlab-path-patching',
    'headlab-circuit-faithfulness',
  ]) {
    assert.ok(classOf(tag).observedAttributes.includes('pairs'), tag);
  }
});
