// Hand-written types for the JS layer over the WASM core (web/headlab-core.js).
// Shapes use the core's vocabulary: n tokens, d_model input width, d_k query/key
// width, d_v value width. All numbers are plain float64; all angles are radians.

/** A dense matrix, row-major: entry (i, j) is data[i * cols + j]. data.length === rows * cols. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float64Array;
}

/** Thrown for every error the core reports; message is the C++ message unchanged. */
export class HeadlabError extends Error {
  name: 'HeadlabError';
}

export interface AttentionInput {
  /** n × d_model, finite, n ≥ 1. */
  x: Matrix;
  /** d_model × d_k query projection W_Q. */
  w_q: Matrix;
  /** d_model × d_k key projection W_K (same d_k as w_q). */
  w_k: Matrix;
  /** d_model × d_v value projection W_V. */
  w_v: Matrix;
  /** Position i attends only to j ≤ i. Default false. */
  causal?: boolean;
  /** n × n non-negative weights used instead of the softmax (patching). Default: none. */
  weights_override?: Matrix | null;
}

export interface AttentionResult {
  /** n × d_k, X W_Q */
  q: Matrix;
  /** n × d_k, X W_K */
  k: Matrix;
  /** n × d_v, X W_V */
  v: Matrix;
  /** n × n, Q Kᵀ / √d_k; masked entries are -Infinity. */
  scores: Matrix;
  /** n × n, row softmax of scores (rows sum to 1), or the override. */
  weights: Matrix;
  /** n × d_v, weights · V */
  reading: Matrix;
}

export interface HeadlabCore {
  /** Semantic version of the core, e.g. "0.1.0". */
  version(): string;
  /** One attention head. Throws HeadlabError naming the argument on a bad shape or a non-finite entry. */
  attention(input: AttentionInput): AttentionResult;
  /** w (d_model × d) with output columns a and b (0-based, in [0, d)) exchanged. */
  swapProjectionCoordinates(w: Matrix, a: number, b: number): Matrix;
  /** { q: Q R, k: K R } for orthogonal R (d_k × d_k); throws if max |RᵀR − I| > 1e-9. */
  rotateQueryKey(q: Matrix, k: Matrix, rotation: Matrix): { q: Matrix; k: Matrix };
  /** d × d identity with a rotation by `angle` radians in the plane of coordinates a ≠ b. */
  planeRotation(d: number, a: number, b: number, angle: number): Matrix;
}

/** Emscripten module options: { wasmBinary: Uint8Array } in Node, { locateFile(path): string } in a page. */
export interface ModuleOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
}

export type CoreFactory = (options?: ModuleOptions) => Promise<unknown>;

/** Instantiates the module; rejects with HeadlabError if the .wasm cannot be fetched or compiled. */
export function loadCore(factory: CoreFactory, moduleOptions?: ModuleOptions): Promise<HeadlabCore>;
/** Wraps an already instantiated module. */
export function wrapCore(module: unknown): HeadlabCore;
