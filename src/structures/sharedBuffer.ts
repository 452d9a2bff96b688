/** SharedArrayBuffer where the platform has one (Node; a cross-origin-isolated page), else ArrayBuffer: memory a worker can share. */
export const SharedOrPlainBuffer: ArrayBufferConstructor =
  (typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : ArrayBuffer) as ArrayBufferConstructor;
