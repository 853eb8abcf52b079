// JS face of web/bindings/module_bindings.cpp, in every module: the version, and
// what a leak check measures.
export function moduleApi(module) {
  return {
    version: () => module.version(),
    memoryDiagnostics: () => ({
      heap_bytes_in_use: module.heap_bytes_in_use(),
      memory_bytes: module.HEAP8 ? module.HEAP8.buffer.byteLength : (module.wasmMemory?.buffer.byteLength ?? NaN),
      live_handles: typeof module.count_emval_handles === 'function' ? module.count_emval_handles() : NaN,
    }),
  };
}
