// The layout-shift probe the browser tests install in a page before its scripts
// (page.addInitScript(layoutShiftProbe)): the shifts after the first custom element is defined
// — before that the page is static HTML (the snapshot sheets and the KaTeX fonts arriving re-flow
// it), nothing of a widget's, and those are counted apart — with what moved in each.
//
// In the page afterwards: window.__cls (the widgets' shifts), window.__clsBefore (before any
// element was defined), window.__shifts (one line per shift: its value, time and sources — the
// node, its shadow host if any, its top and height before → after) and window.__takeShifts(),
// which counts the shifts measured but not yet delivered to the observer (its callback runs in a
// later task). A function, not a string: the strict CSP refuses eval.

/** Runs in the page (page.addInitScript): installs the probe described above. */
export function layoutShiftProbe() {
  window.__definedAt = Infinity;
  const define = customElements.define.bind(customElements);
  customElements.define = (...args) => {
    window.__definedAt = Math.min(window.__definedAt, performance.now());
    return define(...args);
  };
  window.__cls = 0;
  window.__clsBefore = 0;
  window.__shifts = [];
  const take = (entries) => {
    for (const e of entries) {
      if (e.hadRecentInput) continue;
      if (e.startTime < window.__definedAt) {
        window.__clsBefore += e.value;
        continue;
      }
      window.__cls += e.value;
      window.__shifts.push(
        `${e.value.toFixed(4)} at ${e.startTime.toFixed(0)} ms: ${e.sources
          .map((s) => {
            const n = s.node?.nodeType === 3 ? s.node.parentElement : s.node;
            const host = n?.getRootNode?.().host;
            return `${host ? `${host.localName} > ` : ''}${n ? `${n.localName}${n.id ? `#${n.id}` : ''}.${n.className}` : '(removed)'} ${s.previousRect.top}→${s.currentRect.top} (h ${s.previousRect.height}→${s.currentRect.height})`;
          })
          .join(', ')}`,
      );
    }
  };
  const observer = new PerformanceObserver((list) => take(list.getEntries()));
  observer.observe({ type: 'layout-shift', buffered: true });
  window.__takeShifts = () => take(observer.takeRecords());
}

/**
 * What the probe measured in `page` until now (the undelivered shifts counted first):
 * { cls, before, shifts, firstLive } as described above (firstLive: window.__firstLive, where a
 * test's own init script sets it).
 */
export async function readShifts(page) {
  return page.evaluate(() => {
    window.__takeShifts();
    return { cls: window.__cls, before: window.__clsBefore, shifts: window.__shifts, firstLive: window.__firstLive };
  });
}
