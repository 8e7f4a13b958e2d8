// Errors crossing from Python to the page: readingroom's typed errors keep their kind and message.

import { errorInfo } from './rpc.js';

/**
 * A Python exception reaches JS as a PythonError carrying only the class name and traceback text.
 * readingroom's errors carry a stable `kind`; Pyodide leaves the exception in sys.last_exc, so
 * read the kind and plain message from there when we can.
 */
export function pythonErrorInfo(pyodide, err) {
  if (!pyodide || !(err instanceof pyodide.ffi.PythonError)) return errorInfo(err);
  const lines = String(err.message).trim().split('\n');
  let info = { type: err.type, message: lines[lines.length - 1] };
  let sys;
  let exc;
  try {
    sys = pyodide.pyimport('sys');
    exc = sys.last_exc ?? sys.last_value;
    if (exc && exc.__class__.__name__ === err.type) { // not a stale one from an earlier error
      const kind = exc.kind;
      info = { type: typeof kind === 'string' ? kind : err.type, message: exc.toString() || info.message };
    }
  } catch {
    // keep the traceback-derived info
  } finally {
    exc?.destroy?.();
    sys?.destroy?.();
  }
  return info;
}
