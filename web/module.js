// JS face of web/bindings/module_bindings.cpp, in every module: the version, and
// what a leak check measures; and the one way a module is instantiated and wrapped.
import { HeadlabError } from './errors.js';

export function moduleApi(module) {
  return {
    version: () => module.version(),
    memoryDiagnostics: () => ({
      heap_bytes_in_use: module.heap_bytes_in_use(),
      memory_bytes: module.HEAP8 ? module.HEAP8.buffer.byteLength : (module.wasmMemory?.buffer.byteLength ?? NaN),
      live_handles: typeof module.count_emval_handles === 'function' ? module.count_emval_handles() : NaN,
      // Bytes copied from JS typed arrays (matrices, byte arrays) into the heap since the module started.
      bytes_copied_in: module.bytes_copied_in(),
    }),
  };
}

/**
 * Instantiates an Emscripten module with `factory` (a createHeadlab… default export) and
 * `moduleOptions` ({ wasmBinary } in Node, { locateFile } or { instantiateWasm } in a page), and
 * returns moduleApi plus `api(module)`. A failure rejects with HeadlabError naming `name`.
 */
export async function loadModule(factory, moduleOptions, name, api) {
  let module;
  try {
    module = await factory(moduleOptions ?? {});
  } catch (err) {
    throw new HeadlabError(`the headlab WebAssembly ${name} failed to load: ${err?.message ?? err}`);
  }
  return { ...moduleApi(module), ...api(module) };
}
