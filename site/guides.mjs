// The shipped guides as pages of the site (build/site/docs/<name>.html), beside the Markdown the
// package ships: a reader who follows "the model files" from the own-model page gets a page with
// the site's layout, headings to link to and tables that scroll, not a text file.
//
// The text is the package's (site/package-docs.mjs: links to repository files written out as
// paths). Links between guides go to their pages; headings get GitHub's anchors (lower case,
// punctuation dropped, spaces to hyphens, "-1", "-2" … on repeats), so every "guide.md#section"
// link written for the repository lands on the same section here. Raw HTML in a guide is shown as
// text, never run: the guides quote element markup, and a page must not start those elements.
import { Marked } from 'marked';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packagedGuide, SHIPPED_DOCS } from './package-docs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** GitHub's heading anchor for `text` (its words, lower case), made unique against `seen`. */
export function headingAnchor(text, seen) {
  const base = text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return count ? `${base}-${count}` : base;
}

/** A guide's Markdown (already packaged) as the HTML body of its page: { body, title }. */
export function guideHtml(markdown) {
  const seen = new Map();
  let title = 'headlab guide';
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading({ tokens, depth, text }) {
        const inner = this.parser.parseInline(tokens);
        if (depth === 1) title = text.replace(/`/g, '');
        return `<h${depth} id="${headingAnchor(text, seen)}">${inner}</h${depth}>\n`;
      },
      // A code block is a scroll box a keyboard reaches and a screen reader names, as the
      // articles' are (a line wider than a phone scrolls inside it, not the page).
      code({ text, lang }) {
        const language = (lang ?? '').split(/\s/)[0];
        const cls = language ? ` class="language-${escapeHtml(language)}"` : '';
        const label = language ? `Code (${language})` : 'Code';
        return `<pre tabindex="0" role="region" aria-label="${escapeHtml(label)}"><code${cls}>${escapeHtml(text)}</code></pre>\n`;
      },
      html({ text }) {
        return escapeHtml(text);
      },
      link({ href, title: linkTitle, tokens }) {
        const inner = this.parser.parseInline(tokens);
        const [file, anchor] = href.split('#');
        const guide = /^([a-z-]+)\.md$/.exec(file);
        const target = guide && SHIPPED_DOCS.includes(guide[1]) ? `${guide[1]}.html${anchor ? `#${anchor}` : ''}` : href;
        return `<a href="${escapeHtml(target)}"${linkTitle ? ` title="${escapeHtml(linkTitle)}"` : ''}>${inner}</a>`;
      },
    },
  });
  const body = marked.parse(markdown);
  return { body, title };
}

/**
 * Writes every shipped guide as a page into `dir` through `page(body, title, depth)` (the site's
 * layout), its tables wrapped by `wrapTables`.
 */
export function writeGuidePages(dir, page, wrapTables) {
  fs.mkdirSync(dir, { recursive: true });
  for (const d of SHIPPED_DOCS) {
    const { body, title } = guideHtml(packagedGuide(fs.readFileSync(path.join(root, 'docs', `${d}.md`), 'utf8')));
    fs.writeFileSync(path.join(dir, `${d}.html`), page(`<article class="guide">\n${wrapTables(body)}</article>`, title, 1));
  }
}
