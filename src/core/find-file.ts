import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * The file a program name stands for, as `spawn` would find it: a path with a `/` as given,
 * a bare name looked up in the folders of `searchPath` (PATH). Undefined when there is none.
 */
export function findProgram(path: string, searchPath = process.env.PATH ?? ""): string | undefined {
  const candidates = path.includes("/")
    ? [path]
    : searchPath
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, path));
  return candidates.find((file) => {
    try {
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/** Whether this process may execute `file`. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
