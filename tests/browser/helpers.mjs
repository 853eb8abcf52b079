// Shared by the browser tests: serve build/site, drive Debian's Chromium with
// playwright-core, collect console errors and off-origin requests, keep screenshots.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../site/serve.mjs';
import { launchChromium } from '../../site/chromium.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const artifactsDir = path.join(root, 'test-results/screenshots');

/**
 * Starts the server and a browser (`handle`: site/serve.mjs's hook for answers of the test's own).
 * Returns { url, browser, newPage, close }.
 * newPage(options) gives a page whose `problems` array collects console errors,
 * page errors, CSP violations and requests to any origin other than the server's.
 */
export async function startSession({ dir, csp = false, handle = null } = {}) {
  const { server, url } = await serve({ dir, port: 0, csp, handle });
  // playwright gives every launch a fresh temporary profile (its own --user-data-dir).
  const browser = await launchChromium(chromium);
  const origin = new URL(url).origin;
  const contexts = [];
  async function newPage({ colorScheme = 'light', viewport = { width: 1000, height: 800 }, ...rest } = {}) {
    const context = await browser.newContext({ colorScheme, viewport, ...rest });
    contexts.push(context);
    const page = await context.newPage();
    page.problems = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') page.problems.push(`console: ${msg.text()}`);
    });
    page.on('pageerror', (err) => page.problems.push(`pageerror: ${err.message}`));
    page.on('response', (res) => {
      if (res.status() >= 400) page.problems.push(`HTTP ${res.status()}: ${res.url()}`);
    });
    page.on('request', (req) => {
      const u = req.url();
      if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) page.problems.push(`off-origin request: ${u}`);
    });
    return page;
  }
  async function close() {
    for (const c of contexts) await c.close().catch(() => {});
    await browser.close();
    await new Promise((r) => server.close(r));
  }
  return { url, browser, newPage, close };
}

/** Saves a screenshot under test-results/screenshots/<name>.png (kept as a CI artifact). */
export async function screenshot(target, name) {
  fs.mkdirSync(artifactsDir, { recursive: true });
  const file = path.join(artifactsDir, `${name}.png`);
  await target.screenshot({ path: file });
  return file;
}

/**
 * Records every Web Worker the page makes (window.__workerLog: { url, terminated }), before any
 * of its scripts runs: what workersEnded() reads. A worker's `terminate()` marks it at once, on
 * the page's thread, while the browser tears the worker down later (Playwright's 'close').
 */
export async function trackWorkers(page) {
  await page.addInitScript(() => {
    const log = [];
    window.__workerLog = log;
    const NativeWorker = window.Worker;
    window.Worker = class extends NativeWorker {
      constructor(url, options) {
        super(url, options);
        this.__entry = { url: String(url), terminated: false };
        log.push(this.__entry);
      }

      terminate() {
        this.__entry.terminated = true;
        super.terminate();
      }
    };
  });
}

/**
 * Asserts that every worker the page made (trackWorkers) has been terminated by its owner, then
 * waits until the browser has closed each of them: the state "no workers", reached through each
 * worker's 'close' event, never a time. A worker made meanwhile (one whose start was pending) is
 * caught by the next round's check, which fails rather than waiting for a worker nobody ends.
 */
export async function workersEnded(page, what) {
  for (;;) {
    const alive = await page.evaluate(() => window.__workerLog.filter((w) => !w.terminated).map((w) => w.url.split('/').pop()));
    if (alive.length) throw new Error(`${what}: ${alive.length} worker(s) outlived their widget (never terminated): ${alive.join(', ')}`);
    const workers = page.workers();
    if (!workers.length) return;
    // Every worker listed now was terminated (checked above), so each 'close' comes.
    await Promise.race(workers.map((w) => new Promise((resolve) => w.once('close', resolve))));
  }
}

/**
 * Waits until every figure of `page` (each headlab-* element but <headlab-value>) is live: it has
 * rendered, nothing is scheduled, and its prerendered snapshot's sheet (headlab-snapshot/, written
 * by headlab render and the integrations) has left its shadow root with the snapshot. A page
 * without a figure never passes.
 */
export async function figuresLive(page, { timeout = 90_000 } = {}) {
  await page.waitForFunction(
    () => {
      const all = [...document.querySelectorAll('*')].filter((e) => e.localName.startsWith('headlab-') && e.localName !== 'headlab-value');
      return (
        all.length > 0 &&
        all.every((e) => e.renderCount > 0 && !e.updatePending && !e.shadowRoot.querySelector('link[href*="headlab-snapshot/"]'))
      );
    },
    null,
    { timeout },
  );
}

/**
 * Run in a page (page.evaluate(misplacedFigures)): how its figures sit in the document as the
 * browser parsed it. A figure (a headlab-* element but <headlab-value>, a number in a sentence)
 * left in a <p> loses its light-DOM copy (`<div class="hl-snapshot">`) to the parser, which closes
 * the paragraph at that <div>: the copy lands beside the figure, shown as a second picture, and the
 * paragraph's end tag opens an empty <p>. Returns each such problem; [] when every figure is a
 * block of its own.
 */
export function misplacedFigures() {
  const out = [];
  for (const e of document.querySelectorAll('*'))
    if (e.localName.startsWith('headlab-') && e.localName !== 'headlab-value' && e.closest('p')) out.push(`<${e.localName}> in a <p>`);
  for (const d of document.querySelectorAll('.hl-snapshot'))
    if (!d.parentElement?.localName.startsWith('headlab-')) out.push(`a light-DOM copy under <${d.parentElement?.localName}>`);
  for (const p of document.querySelectorAll('p')) if (!p.textContent.trim() && !p.children.length) out.push('an empty <p>');
  return out;
}
