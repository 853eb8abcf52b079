// Errors crossing the boundary: bindings return { error } for a C++ exception.

export class HeadlabError extends Error {
  constructor(message) {
    super(message);
    this.name = 'HeadlabError';
  }
}

/** Returns `result`, or throws HeadlabError when the binding reported { error }. */
export function unwrap(result) {
  if (result && typeof result === 'object' && typeof result.error === 'string') {
    throw new HeadlabError(result.error);
  }
  return result;
}
