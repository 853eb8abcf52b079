// Writes that change only what differs. A render that only changes what a node says changes the
// data of its one Text node, so no node is made or removed and the widget's structure observer
// records no childList mutation (each would make the render walk the whole shadow root for
// layout); a text or attribute that is already what a render would write is not written at all,
// since a write of the same value still invalidates the node's style, layout or both (a button
// or a table cell given the same text is laid out again, with everything in its line).

/** Sets the data of `node`'s only child when that child is a Text node; false (nothing done) otherwise. */
export function setSoleText(node: Node, text: string): boolean {
  const only = node.firstChild;
  if (only === null || only !== node.lastChild || only.nodeType !== Node.TEXT_NODE) return false;
  if ((only as Text).data !== text) (only as Text).data = text;
  return true;
}

/** Sets `node`'s text: in place when it holds one Text node, not at all when it already says `text`. */
export function setText(node: Node, text: string): void {
  if (!setSoleText(node, text) && node.textContent !== text) node.textContent = text;
}

/** Sets attribute `name` of `node` to `value` unless it already has that value. */
export function setAttributeIfChanged(node: Element, name: string, value: string): void {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}
