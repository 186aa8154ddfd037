import { closeSync, copyFileSync, fchmodSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export interface AtomicWriteOptions {
  /** The file's permissions, exactly (the umask does not apply). Default: as the umask gives. */
  mode?: number;
}

/**
 * Writes a file so that no reader, crash or power cut ever sees it half-written: the content
 * goes to a temp file in the same folder, which is flushed to disk and then renamed over the
 * target; the folder is flushed too, so the rename itself survives a power cut. A file in use
 * (a running engine binary) is replaced, never overwritten. On failure the temp file is removed
 * and the target keeps its old content.
 */
export function writeFileAtomic(path: string, content: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  replaceFile(path, options, (temp) => {
    // Created with its final mode when new (the umask may narrow it; fchmod below makes it exact).
    const fd = openSync(temp, "w", options.mode ?? 0o666);
    try {
      const bytes = typeof content === "string" ? Buffer.from(content) : content;
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
    } finally {
      closeSync(fd);
    }
  });
}

/** Copies `source` to `dest` with the guarantees of writeFileAtomic. */
export function copyFileAtomic(source: string, dest: string, options: AtomicWriteOptions = {}): void {
  replaceFile(dest, options, (temp) => copyFileSync(source, temp));
}

function replaceFile(path: string, options: AtomicWriteOptions, fill: (temp: string) => void): void {
  // Unique per process; a write is synchronous, so one process never has two under way.
  const temp = `${path}.${process.pid}.tmp`;
  try {
    fill(temp);
    const fd = openSync(temp, "r+");
    try {
      if (options.mode !== undefined) fchmodSync(fd, options.mode);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncFolder(dirname(path));
}

/** Flushes a folder's entries (the rename) to disk, where the file system can. */
function syncFolder(folder: string): void {
  const fd = openSync(folder, "r");
  try {
    fsyncSync(fd);
  } catch (error) {
    // Some file systems (network, FUSE) cannot flush a folder; the file itself is written.
    if (!["EINVAL", "ENOTSUP", "EISDIR"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
  } finally {
    closeSync(fd);
  }
}
