// The cores for pages and for the worker: one instance of each module per realm, loaded
// on first use, and one download of each .wasm per page.
//
// Each .wasm is fetched from new URL('./<name>.wasm', import.meta.url), written literally
// so that it resolves beside the bundle's chunks wherever the folder is served from, and
// so that a bundler that follows the pattern (Vite, Astro, webpack 5, Parcel) copies and
// hashes it when an app bundles the package again. We compile it ourselves
// (Emscripten's instantiateWasm hook) and keep the WebAssembly.Module: the page hands it
// to its worker with each job (web/worker-client.js), so the worker instantiates the
// page's compiled module instead of downloading the .wasm a second time. The feature-recovery,
// max-digit and transformer modules and their JS faces (web/<concept>.js) are imported
// dynamically, so pages without their widgets download neither their JS nor their .wasm.
import createHeadlabCore from 'headlab-wasm-module';
import { loadCore } from './attention.js';
import { HeadlabError } from './errors.js';

const wasmUrl = {
  core: () => new URL('./headlab_core.wasm', import.meta.url),
  'feature-recovery': () => new URL('./headlab_feature_recovery.wasm', import.meta.url),
  'max-digit': () => new URL('./headlab_max_digit.wasm', import.meta.url),
  transformer: () => new URL('./headlab_transformer.wasm', import.meta.url),
};
const label = {
  core: 'core',
  'feature-recovery': 'feature-recovery module',
  'max-digit': 'max-digit module',
  transformer: 'transformer module',
};

/** name → Promise<WebAssembly.Module>, started by the first load (or given by the page). */
const compiled = {};

async function fetchAndCompile(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.href} could not be fetched (HTTP ${response.status})`);
  // compileStreaming needs the application/wasm type; a plain static server may send another.
  if (typeof WebAssembly.compileStreaming === 'function' && /^application\/wasm\b/.test(response.headers.get('content-type') ?? '')) {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

function compile(name) {
  compiled[name] ??= fetchAndCompile(wasmUrl[name]());
  return compiled[name];
}

/** Starts compiling module `name` (its failure is reported by the instantiation that awaits it). */
function compileEarly(name) {
  compile(name).catch(() => {});
}

/**
 * Instantiates module `name` through Emscripten's `factory` from our compiled module.
 * A failed download or instantiation rejects with HeadlabError (Emscripten itself would
 * wait forever for an instantiateWasm hook that never answers).
 */
function instantiate(name, factory, load) {
  let fail;
  const failed = new Promise((_, reject) => {
    fail = reject;
  });
  const moduleOptions = {
    instantiateWasm(imports, receiveInstance) {
      compile(name)
        .then((module) => WebAssembly.instantiate(module, imports).then((instance) => receiveInstance(instance, module)))
        .catch((err) => fail(new HeadlabError(`the headlab WebAssembly ${label[name]} failed to load: ${err?.message ?? err}`)));
      return {}; // exports arrive through receiveInstance
    },
  };
  return Promise.race([load(factory, moduleOptions), failed]);
}

let corePromise = null;
let featureRecoveryPromise = null;
let maxDigitPromise = null;
let transformerPromise = null;

/** Resolves to the wrapped headlab_core (see headlab-core.d.ts); rejects with HeadlabError if loading fails. */
export function getCore() {
  corePromise ??= instantiate('core', createHeadlabCore, loadCore);
  return corePromise;
}

// Each get…Core() starts downloading and compiling its .wasm at once, beside the import of its
// JS: a job posted to a worker meanwhile waits for that compile (compiledModules) and hands the
// worker the compiled module, instead of the worker downloading the .wasm a second time.

/** Resolves to the wrapped headlab_feature_recovery module; rejects with HeadlabError if loading fails. */
export function getFeatureRecoveryCore() {
  compileEarly('feature-recovery');
  featureRecoveryPromise ??= Promise.all([import('headlab-feature-recovery-module'), import('./feature-recovery.js')]).then(
    ([{ default: factory }, { loadFeatureRecoveryCore }]) => instantiate('feature-recovery', factory, loadFeatureRecoveryCore),
  );
  return featureRecoveryPromise;
}

/** Resolves to the wrapped headlab_max_digit module; rejects with HeadlabError if loading fails. */
export function getMaxDigitCore() {
  compileEarly('max-digit');
  maxDigitPromise ??= Promise.all([import('headlab-max-digit-module'), import('./max-digit.js')]).then(
    ([{ default: factory }, { loadMaxDigitCore }]) => instantiate('max-digit', factory, loadMaxDigitCore),
  );
  return maxDigitPromise;
}

/** Resolves to the wrapped headlab_transformer module; rejects with HeadlabError if loading fails. */
export function getTransformerCore() {
  compileEarly('transformer');
  transformerPromise ??= Promise.all([import('headlab-transformer-module'), import('./transformer.js')]).then(
    ([{ default: factory }, { loadTransformerCore }]) => instantiate('transformer', factory, loadTransformerCore),
  );
  return transformerPromise;
}

/**
 * Starts compiling headlab_transformer.wasm in this realm without instantiating it (no heap, no
 * model): a transformer model source's worker is then handed the compiled module with its first
 * job (compiledModules), so a page with several sources downloads the .wasm once.
 */
export function compileTransformerModule() {
  compileEarly('transformer');
}

/**
 * The compiled modules this realm has (or is compiling), as { core?, 'feature-recovery'?, 'max-digit'?, transformer? }:
 * what the page posts to its worker. A module whose download failed is left out (the
 * worker then reports the failure itself).
 */
export async function compiledModules() {
  const out = {};
  await Promise.all(
    Object.entries(compiled).map(([name, p]) =>
      p.then(
        (m) => {
          out[name] = m;
        },
        () => {},
      ),
    ),
  );
  return out;
}

/** Uses modules compiled elsewhere (the page, in the worker) for those this realm has not started loading. */
export function useCompiledModules(modules = {}) {
  for (const [name, module] of Object.entries(modules)) {
    if (name in wasmUrl && module instanceof WebAssembly.Module) compiled[name] ??= Promise.resolve(module);
  }
}
