// The site build's page steps: figure numbering and figure references, prose tables wrapped
// in a sideways-scrolling box.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { numberFigures, wrapTables } from '../../site/build.mjs';

test('figures are numbered in document order; figrefs read "Figure N" wherever they are', () => {
  const html = [
    '<p>As <a class="figref" href="#fig-b"></a> shows, and <a class="figref" href="#fig-a"></a> too.</p>',
    '<figure class="hl-figure" id="fig-a"><headlab-x id="x"></headlab-x><figcaption>Look at the bars.</figcaption></figure>',
    '<figure class="plain"><img alt=""><figcaption>Not numbered.</figcaption></figure>',
    '<figure class="hl-figure hl-wide" id="fig-b"><headlab-y></headlab-y>\n<figcaption class="c">The ramp.</figcaption></figure>',
    '<p><a class="figref" href="#fig-a">the first figure</a></p>',
  ].join('\n');
  const out = numberFigures(html, 'page.html');
  assert.match(out, /As <a class="figref" href="#fig-b">Figure 2<\/a> shows, and <a class="figref" href="#fig-a">Figure 1<\/a> too/);
  assert.match(out, /<figcaption><span class="fig-number">Figure 1\.<\/span> Look at the bars\.<\/figcaption>/);
  assert.match(out, /<figcaption class="c"><span class="fig-number">Figure 2\.<\/span> The ramp\./);
  assert.match(out, /<figcaption>Not numbered\.<\/figcaption>/);
  assert.match(out, /<a class="figref" href="#fig-a">the first figure<\/a>/);
});

test('a reference to a missing figure, or a repeated figure id, fails the build naming the page', () => {
  assert.throws(() => numberFigures('<a class="figref" href="#fig-nope"></a>', 'a.html'), /a\.html: .*#fig-nope/);
  assert.throws(
    () => numberFigures('<figure class="hl-figure" id="f"></figure><figure class="hl-figure" id="f"></figure>', 'b.html'),
    /b\.html: two figures with id="f"/,
  );
});

test('prose tables scroll sideways inside .hl-scroll (once)', () => {
  assert.equal(
    wrapTables('<p>x</p><table><tr><td>1</td></tr></table>'),
    '<p>x</p><div class="hl-scroll"><table><tr><td>1</td></tr></table></div>',
  );
  const already = '<div class="hl-scroll" data-label="Roles"><table><tr><td>1</td></tr></table></div>';
  assert.equal(wrapTables(already), already);
});

test('display equations split at top-level \\qquad only (not inside braces or environments)', async () => {
  const { splitTopLevel, renderMath } = await import('../../site/build.mjs');
  assert.deepEqual(splitTopLevel('q = xW_q,\\qquad v_i = x^{(i)}W_v,\\qquad A=\\frac{a\\qquad b}{c}', '\\qquad'), [
    'q = xW_q,',
    'v_i = x^{(i)}W_v,',
    'A=\\frac{a\\qquad b}{c}',
  ]);
  assert.deepEqual(splitTopLevel('\\begin{bmatrix}1\\qquad 2\\end{bmatrix},\\qquad x', '\\qquad'), [
    '\\begin{bmatrix}1\\qquad 2\\end{bmatrix},',
    'x',
  ]);
  assert.deepEqual(splitTopLevel('a \\qquadx b', '\\qquad'), ['a \\qquadx b']);
  const html = renderMath('<p>$$a = 1,\\qquad b = 2$$</p>', 't.html');
  assert.equal((html.match(/class="katex-display"/g) ?? []).length, 2);
  assert.match(html, /^<p><span class="katex-wrap">/);
});
