// The one way headlab starts a browser: the reserved sizes of headlab.css (site/reserve-sizes.mjs),
// the browser tests (tests/browser/helpers.mjs) and the widget benchmarks all launch through here.
// The site build itself needs none (its snapshots are drawn in Node, site/snapshots.mjs).
//
// Debian's chromium-headless-shell: the headless-only build of the same Chromium (the same Blink,
// V8 and fonts from chromium-common), and what Playwright itself runs for headless Chromium. The
// full browser's headless mode runs the desktop browser's layers too; on the feature-recovery
// browser tests (2-core EPYC) the full browser's processes used 61 CPU-s and the shell's 44.
// CHROMIUM_PATH picks another binary (`CHROMIUM_PATH=/usr/bin/chromium` for the full browser).
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';

// Root needs --no-sandbox; the rest keep a closed machine quiet: no GPU, no background
// connections (refused on this network, many at a time), no updates, sync or first-run work.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Launches Chromium headless with playwright-core's `chromium` (passed in: this module imports nothing). */
export function launchChromium(chromium, options = {}) {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true, ...options });
}
