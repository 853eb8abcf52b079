// Shared by the browser tests: serve build/site, drive Debian's Chromium with
// playwright-core, collect console errors and off-origin requests, keep screenshots.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../../site/serve.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const artifactsDir = path.join(root, 'test-results/screenshots');

const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
];

/**
 * Starts the server and a browser (`handle`: site/serve.mjs's hook for answers of the test's own).
 * Returns { url, browser, newPage, close }.
 * newPage(options) gives a page whose `problems` array collects console errors,
 * page errors, CSP violations and requests to any origin other than the server's.
 */
export async function startSession({ dir, csp = false, handle = null } = {}) {
  const { server, url } = await serve({ dir, port: 0, csp, handle });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    // playwright gives every launch a fresh temporary profile (its own --user-data-dir).
    args: CHROMIUM_ARGS,
    headless: true,
  });
  const origin = new URL(url).origin;
  const contexts = [];
  async function newPage({ colorScheme = 'light', viewport = { width: 1000, height: 800 }, ...rest } = {}) {
    const context = await browser.newContext({ colorScheme, viewport, ...rest });
    contexts.push(context);
    const page = await context.newPage();
    page.problems = [];
    page.on('console', (msg) => { if (msg.type() === 'error') page.problems.push(`console: ${msg.text()}`); });
    page.on('pageerror', (err) => page.problems.push(`pageerror: ${err.message}`));
    page.on('response', (res) => { if (res.status() >= 400) page.problems.push(`HTTP ${res.status()}: ${res.url()}`); });
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
