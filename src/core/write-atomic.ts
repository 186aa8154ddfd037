import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";

export interface AtomicWriteOptions {
  /** The file's permissions, exactly (the umask does not apply). Default 0600: say 0644 for a file others may read. */
  mode?: number;
  /**
   * False: no flush to disk (fsync), for a file that costs nothing if a power cut loses it; readers
   * still never see it half-written. Default true.
   */
  durable?: boolean;
}

const DEFAULT_MODE = 0o600;

/**
 * Writes a file so that no reader, crash or power cut ever sees it half-written: the content
 * goes to a temp file in the same folder, which is flushed to disk and then renamed over the
 * target; the folder is flushed too, so the rename itself survives a power cut. A file in use
 * (a running engine binary) is replaced, never overwritten. On failure the temp file is removed
 * and the target keeps its old content.
 *
 * The temp file is created with O_EXCL|O_NOFOLLOW and its final mode, so nobody else ever
 * opens it (no window between create and chmod) and a planted name or symlink is never
 * followed.
 */
export function writeFileAtomic(path: string, content: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const bytes = typeof content === "string" ? Buffer.from(content) : content;
  replaceFile(path, options, (fd) => writeAll(fd, bytes, bytes.length));
}

/** Copies `source` to `dest` with the guarantees of writeFileAtomic. */
export function copyFileAtomic(source: string, dest: string, options: AtomicWriteOptions = {}): void {
  const input = openSync(source, "r");
  try {
    replaceFile(dest, options, (fd) => {
      const chunk = Buffer.allocUnsafe(1 << 20);
      for (let read; (read = readSync(input, chunk, 0, chunk.length, null)) > 0;) writeAll(fd, chunk, read);
    });
  } finally {
    closeSync(input);
  }
}

function writeAll(fd: number, bytes: Uint8Array, length: number): void {
  for (let written = 0; written < length;) written += writeSync(fd, bytes, written, length - written);
}

function replaceFile(path: string, options: AtomicWriteOptions, fill: (fd: number) => void): void {
  const mode = options.mode ?? DEFAULT_MODE;
  // Random, so a temp file left by a killed writer (or planted by someone else) never blocks O_EXCL.
  const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  let open = true;
  try {
    // The umask can only have narrowed the mode at creation; this sets it exactly (widening only).
    fchmodSync(fd, mode);
    fill(fd);
    if (options.durable !== false) fsyncSync(fd);
    open = false;
    closeSync(fd);
    renameSync(temp, path);
  } catch (error) {
    if (open) closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  if (options.durable !== false) syncFolder(dirname(path));
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
