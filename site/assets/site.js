// Site-wide reading aids (no inline script: strict CSP).
//   - A box that scrolls sideways (.hl-scroll, a display equation) becomes, while its content
//     overflows, a labelled region in the Tab order (keyboard users scroll it with the arrow
//     keys) marked data-overflows, with its visible width in --hl-scroll-width; the CSS shows
//     shadows at the edges it can scroll towards and keeps a table's caption in view.
const BOXES = '.hl-scroll, .katex-display';

function labelFor(box) {
  if (box.dataset.label) return box.dataset.label;
  if (box.classList.contains('katex-display')) return 'Equation';
  const caption = box.querySelector('caption');
  return caption ? caption.textContent.trim().replace(/\s+/g, ' ').slice(0, 80) : 'Table';
}

function mark(box) {
  const overflows = box.scrollWidth > box.clientWidth + 1;
  // The visible width, for a table's caption held in view (site.css, `.hl-scroll[data-overflows] > table > caption`).
  const width = overflows ? `${box.clientWidth}px` : '';
  if (box.style.getPropertyValue('--hl-scroll-width') !== width) box.style.setProperty('--hl-scroll-width', width);
  if (overflows === box.hasAttribute('data-overflows')) return;
  if (overflows) {
    box.setAttribute('data-overflows', '');
    box.setAttribute('tabindex', '0');
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', `${labelFor(box)} (scrolls sideways)`);
  } else {
    for (const a of ['data-overflows', 'tabindex', 'role', 'aria-label']) box.removeAttribute(a);
  }
}

let frame = 0;
function markAll() {
  frame = 0;
  for (const box of document.querySelectorAll(BOXES)) mark(box);
}
function schedule() {
  if (!frame) frame = requestAnimationFrame(markAll);
}

// After the first frame, not now: reading a box's width (or document.fonts) here would force
// the page's first style and layout inside this script, a long task on a long article; the
// first frame lays the page out anyway, and after it the widths are there to read.
requestAnimationFrame(() =>
  setTimeout(() => {
    markAll();
    // Web fonts (KaTeX) change equation widths once loaded.
    document.fonts?.ready.then(schedule);
  }),
);
addEventListener('resize', schedule);
