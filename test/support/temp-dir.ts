// Temporary folders for a test file, removed after its last test (each run used to leave hundreds behind).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
// Registered when a test file imports this module (hooks cannot be added from inside a test).
afterAll(removeAll);

/** A new folder under the system's temporary directory, named `<prefix>-XXXXXX`, removed after the file's tests. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  made.push(dir);
  return dir;
}

function removeAll(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
