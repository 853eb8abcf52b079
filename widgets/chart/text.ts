// Text rewritten in place: a render that only changes what a node says changes the data of its
// one Text node, so no node is made or removed and the widget's structure observer records no
// childList mutation (each would make the render walk the whole shadow root for layout).

/** Sets the data of `node`'s only child when that child is a Text node; false (nothing done) otherwise. */
export function setSoleText(node: Node, text: string): boolean {
  const only = node.firstChild;
  if (only === null || only !== node.lastChild || only.nodeType !== Node.TEXT_NODE) return false;
  if ((only as Text).data !== text) (only as Text).data = text;
  return true;
}
