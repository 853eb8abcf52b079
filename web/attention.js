// JS face of web/bindings/attention_bindings.cpp.
import { unwrap } from './errors.js';
import { loadModule, moduleApi } from './module.js';

export function attentionApi(module) {
  return {
    attention: (input) => unwrap(module.attention_forward(input ?? {})),
    swapProjectionCoordinates: (w, a, b) => unwrap(module.swap_projection_coordinates(w, a, b)),
    rotateQueryKey: (q, k, rotation) => unwrap(module.rotate_query_key(q, k, rotation)),
    planeRotation: (d, a, b, angle) => unwrap(module.plane_rotation(d, a, b, angle)),
    changeQueryKeyBasis: (q, k, a) => unwrap(module.change_query_key_basis(q, k, a)),
    queryKeyPicture: (q, k, v, scoreScale) => unwrap(module.query_key_picture(q, k, v, scoreScale)),
  };
}

/** Wraps an instantiated headlab_core module (the value its factory resolves to). */
export function wrapCore(module) {
  return { ...moduleApi(module), ...attentionApi(module) };
}

/** Instantiates headlab_core (attention, projection edits) with `factory`, the default export of headlab_core.mjs, and wraps it. */
export function loadCore(factory, moduleOptions = {}) {
  return loadModule(factory, moduleOptions, 'core', attentionApi);
}
