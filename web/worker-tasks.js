// The tasks the worker can run, by kind. Each concept adds one entry:
//   kind: async (core, params, { progress, shouldStop, yieldToEvents }) => resultValue
// A task does its work in chunks, calling progress(...) and awaiting yieldToEvents()
// between chunks, and returns early (with what it has) once shouldStop() is true.
export const workerTasks = {
  // Echo of the core version: lets tests check the worker pipeline itself.
  version: async (core) => core.version(),
};
