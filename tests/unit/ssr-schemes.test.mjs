// Snapshots in both colour schemes (site/ssr/snapshot-markup.js): the light and dark drawings of a
// figure written as one copy whose colours follow the reader's scheme, and the schemes a page is
// drawn in read from its <meta name="color-scheme">.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSchemes, pageSchemes, snapshotMarkup, snapshotStylesheet } from '../../site/ssr/snapshot-markup.js';

// The base sheet's way of naming a theme colour (widgets/base/theme.ts).
const SHEETS = [
  ':host { --hl-panel: var(--headlab-panel, light-dark(#f3f3f1, #202026)); --hl-fg: var(--headlab-fg, light-dark(#1b1b1f, #e8e8ea)); }',
];

function merger() {
  const colours = new Map();
  const colourClass = (css) => {
    if (!colours.has(css)) colours.set(css, `hc${colours.size}`);
    return colours.get(css);
  };
  return { colours, colourClass };
}

test('mergeSchemes: a paint that is a theme colour in both schemes becomes that colour, any other a light-dark() pair', () => {
  const { colours, colourClass } = merger();
  const tokens = new Map([['#f3f3f1|#202026', 'var(--hl-panel)']]);
  const light =
    '<svg><rect x="1" fill="rgb(243, 243, 241)"></rect><rect class="cell" fill="#804020" stroke="rgb(1, 2, 3)"></rect><text>A</text></svg>';
  const dark =
    '<svg><rect x="1" fill="rgb(32, 32, 38)"></rect><rect class="cell" fill="#102030" stroke="rgb(1, 2, 3)"></rect><text>A</text></svg>';
  const out = mergeSchemes(light, dark, { tokens, colourClass });
  assert.equal(out, '<svg><rect x="1" class="hc0"></rect><rect class="cell hc1" stroke="rgb(1, 2, 3)"></rect><text>A</text></svg>');
  assert.deepEqual([...colours.keys()], ['fill:var(--hl-panel)', 'fill:light-dark(#804020, #102030)']);
});

test('mergeSchemes: a style attribute keeps its declarations, each differing colour paired in place', () => {
  const { colourClass } = merger();
  const out = mergeSchemes(
    '<p style="color: rgb(27, 27, 31); width: 3px">x</p>',
    '<p style="color: rgb(232, 232, 234); width: 3px">x</p>',
    {
      tokens: new Map(),
      colourClass,
    },
  );
  assert.equal(out, '<p style="color: light-dark(#1b1b1f, #e8e8ea); width: 3px">x</p>');
});

test('mergeSchemes: an SVG keeps the light drawing’s text zoom (a measurement of its box, not a colour)', () => {
  const { colourClass } = merger();
  const opts = { tokens: new Map(), colourClass };
  assert.equal(
    mergeSchemes(
      '<svg viewBox="0 0 9 9" style="--hl-text-zoom: 1.154;"><rect fill="#000000"/></svg>',
      '<svg viewBox="0 0 9 9" style="--hl-text-zoom: 1.074;"><rect fill="#ffffff"/></svg>',
      opts,
    ),
    '<svg viewBox="0 0 9 9" style="--hl-text-zoom: 1.154;"><rect class="hc0"/></svg>',
  );
  assert.equal(
    mergeSchemes('<svg viewBox="0 0 9 9" style="--hl-text-zoom: 1.2;">', '<svg viewBox="0 0 9 9">', opts),
    '<svg viewBox="0 0 9 9" style="--hl-text-zoom: 1.2;">',
  );
  assert.equal(
    mergeSchemes('<svg viewBox="0 0 9 9">', '<svg viewBox="0 0 9 9" style="--hl-text-zoom: 1.2;">', opts),
    '<svg viewBox="0 0 9 9">',
  );
});

test('mergeSchemes: drawings that differ in more than colours are not merged (null)', () => {
  const { colourClass } = merger();
  const opts = { tokens: new Map(), colourClass };
  assert.equal(mergeSchemes('<p>light</p>', '<p>dark</p>', opts), null, 'text');
  assert.equal(mergeSchemes('<rect x="1">', '<rect x="2">', opts), null, 'a number');
  assert.equal(mergeSchemes('<rect href="#000000">', '<rect href="#ffffff">', opts), null, 'a colour outside a paint, style or data-*');
  assert.equal(mergeSchemes('<ul data-key="2 #000000">', '<ul data-key="2 #ffffff">', opts), '<ul data-key="2 #000000">', 'data-*: inert');
  assert.equal(mergeSchemes('<rect fill="#000000">', '<rect stroke="#000000">', opts), null, 'another attribute');
  assert.equal(mergeSchemes('<i></i>', '<i></i><i></i>', opts), null, 'another node count');
  assert.equal(mergeSchemes('<i a="1"></i>', '<i a="1"></i>', opts), '<i a="1"></i>', 'the same');
});

test('snapshotMarkup: one copy for both schemes, its paints in the sheet; a canvas picture per scheme as a <picture>', () => {
  const png = (byte) => `data:image/png;base64,${Buffer.from([byte]).toString('base64')}`;
  const item = (fill, picture) => ({
    tag: 'headlab-x',
    html: `<div class="body hl-captured-at-1280"><svg><rect fill="${fill}"></rect></svg><img width="4" data-hl-png="0" alt=""></div>`,
    sheets: SHEETS,
    svg: '',
    summary: 'A summary of the figure, long enough.',
    images: [{ url: png(picture), sum: `4x4:${picture}` }],
  });
  const perTag = new Map();
  const out = snapshotMarkup(
    '<headlab-x></headlab-x>',
    [{ width: 1280, items: [item('rgb(243, 243, 241)', 1)], dark: [item('rgb(32, 32, 38)', 2)] }],
    { perTag, href: (tag) => `s/${tag}.css`, imageHref: (name) => `s/${name}` },
  );
  const shadow = /<template shadowrootmode="open">([\s\S]*)<\/template>/.exec(out.html)[1];
  assert.equal((shadow.match(/<svg>/g) ?? []).length, 1, 'one copy');
  const paint = /<rect class="(hc[0-9a-f]{10})"\/>/.exec(shadow)?.[1];
  assert.ok(paint, shadow);
  assert.match(
    shadow,
    /<picture><source media="\(prefers-color-scheme: dark\)" srcset="s\/canvas-[0-9a-f]{16}\.png"><img alt="" src="s\/canvas-[0-9a-f]{16}\.png" width="4"><\/picture>/,
  );
  const [dark, light] = [...shadow.matchAll(/s\/(canvas-[0-9a-f]{16}\.png)/g)].map((m) => m[1]);
  assert.notEqual(dark, light);
  assert.deepEqual([...out.images.keys()].sort(), [dark, light].sort(), 'both pictures written');
  const css = snapshotStylesheet(perTag.get('headlab-x'));
  assert.ok(css.includes(`:where(.${paint}){fill:var(--hl-panel)}`), css);
  assert.match(css, /picture \{ display: contents; \}/);
});

test('snapshotMarkup: drawings that differ in more than colours give a copy per scheme', () => {
  const item = (text) => ({
    tag: 'headlab-x',
    html: `<p class="hl-captured-at-1280">${text}</p>`,
    sheets: SHEETS,
    svg: '',
    summary: '',
    images: [],
  });
  const out = snapshotMarkup('<headlab-x></headlab-x>', [{ width: 1280, items: [item('light')], dark: [item('dark')] }], {
    perTag: new Map(),
    href: () => 'x.css',
  });
  assert.match(out.html, /<p class="hl-w-0-up hl-scheme-light">light<\/p><p class="hl-w-0-up hl-scheme-dark">dark<\/p>/);
});

test('pageSchemes: the schemes a page is drawn in, from its <meta name="color-scheme">', () => {
  assert.deepEqual(pageSchemes('<head><meta name="color-scheme" content="light dark"></head>'), ['light', 'dark']);
  assert.deepEqual(pageSchemes('<meta content="dark light" name=color-scheme>'), ['light', 'dark']);
  assert.deepEqual(pageSchemes('<meta name="color-scheme" content="only dark">'), ['dark']);
  assert.deepEqual(pageSchemes('<meta name="color-scheme" content="light">'), ['light']);
  assert.deepEqual(pageSchemes('<meta name="color-scheme" content="normal">'), ['light']);
  assert.deepEqual(pageSchemes('<p>a fragment</p>'), ['light', 'dark'], 'no tag: the reader’s preference, either');
});
