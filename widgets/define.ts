// Registration of headlab-* elements, safe to import anywhere: in Node, during server
// rendering or at build time (no customElements) it does nothing, and in a browser it
// skips a tag that is already defined (a page may load the bundle twice, or one entry
// point after another).

/** Defines `tag` as `element` when running in a browser and the tag is still free. */
export function defineElement(tag: string, element: CustomElementConstructor): void {
  if (typeof customElements === 'undefined' || customElements.get(tag)) return;
  customElements.define(tag, element);
}
