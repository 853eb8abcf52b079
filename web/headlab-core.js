// The thin JS layer over the embind module: plain functions on plain data.
// Every binding returns fresh JS arrays (copied out of the WASM heap), and C++
// errors arrive as { error } and leave here as HeadlabError with the C++ message.
// No embind class handle is ever returned to callers.

export class HeadlabError extends Error {
  constructor(message) {
    super(message);
    this.name = 'HeadlabError';
  }
}

function unwrap(result) {
  if (result && typeof result === 'object' && typeof result.error === 'string') {
    throw new HeadlabError(result.error);
  }
  return result;
}

/** Wraps an instantiated module (the value createHeadlabCore resolves to). */
export function wrapCore(module) {
  return {
    version: () => module.version(),
    attention: (input) => unwrap(module.attention_forward(input ?? {})),
    swapProjectionCoordinates: (w, a, b) => unwrap(module.swap_projection_coordinates(w, a, b)),
    rotateQueryKey: (q, k, rotation) => unwrap(module.rotate_query_key(q, k, rotation)),
    planeRotation: (d, a, b, angle) => unwrap(module.plane_rotation(d, a, b, angle)),
  };
}

/**
 * Instantiates the module with `factory` (the default export of headlab_core.mjs)
 * and returns the wrapped core. `moduleOptions` go to Emscripten, e.g.
 * { wasmBinary } in Node or { locateFile } in a page.
 */
export async function loadCore(factory, moduleOptions = {}) {
  let module;
  try {
    module = await factory(moduleOptions);
  } catch (err) {
    throw new HeadlabError(`the headlab WebAssembly core failed to load: ${err?.message ?? err}`);
  }
  return wrapCore(module);
}
