// Ids of the elements a widget builds in its shadow tree (a label's `for`, `aria-controls`,
// `aria-describedby`, a radio group's `name`). An id and a radio group are scoped to their tree, so
// each needs to be unique in its widget's shadow root only: counted per widget, not drawn from
// Math.random() nor counted per page, the same widget builds the same ids whatever was built
// before it, in a browser as in headlab/ssr (site/ssr/), whose prerendered markup is so the same
// bytes in every build and in any order of pages.

const counts = new WeakMap<object, number>();

/** A new id `${prefix}-${n}` for an element of `owner`'s shadow tree: n counts the ids `owner` has made (1, 2, …). */
export function localId(owner: object, prefix: string): string {
  const n = (counts.get(owner) ?? 0) + 1;
  counts.set(owner, n);
  return `${prefix}-${n}`;
}
