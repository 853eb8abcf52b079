// JS face of web/bindings/attention_bindings.cpp.
import { unwrap } from './errors.js';

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
