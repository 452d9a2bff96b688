import { readFileSync } from 'node:fs';
import { DetourError, ErrorCode } from './errors.js';

/**
 * Reads a whole input file; a missing file is FILE_NOT_FOUND and any other failure (a directory,
 * no permission) INVALID_INPUT, both naming the file and what it was meant to be (`what`).
 */
export function readInputFile(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new DetourError(ErrorCode.FILE_NOT_FOUND, `${what} not found: ${path}`, { path });
    if (code === 'EISDIR') throw new DetourError(ErrorCode.INVALID_INPUT, `${what} ${path} is a directory, not a file`, { path });
    throw new DetourError(ErrorCode.INVALID_INPUT, `cannot read ${what} ${path}: ${(err as Error).message}`, { path });
  }
}
