// headlab/autoload: importing it (or loading dist/autoload.js with a script tag) registers just the
// headlab-* elements the page uses, found in the document and watched for as they are added.
// Written from widgets/autoload.ts by `node site/package-types.mjs`.

/**
 * Loads the entry point of every undefined headlab-* element in `root` (itself included, if an
 * element): for elements in a shadow root the page builds itself, which the document's observer
 * does not see. Does nothing outside a browser.
 */
export function discover(root: Document | DocumentFragment | Element): void;
