import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withFileLock, type LockHold } from "../../src/core/lock-file.js";

/**
 * The file lock with a hold (src/core/lock-file.ts): a lock whose live holder lost its hold is
 * broken, one whose holder keeps it is waited for, and a holder whose lock was broken removes
 * none but its own.
 */

const dir = mkdtempSync(join(tmpdir(), "spsa-lock-"));
// A live process that is not this one: its pid holds the locks written below.
const other = spawn("sleep", ["600"], { stdio: "ignore" });
afterAll(() => {
  other.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const holdOf = (token: string, lostTokens: readonly string[], asked: string[] = []): LockHold => ({
  token,
  lost: async (t) => {
    asked.push(t);
    return lostTokens.includes(t);
  },
});

describe("withFileLock with a hold", () => {
  it("breaks the lock of a live process whose hold is lost, and waits for one whose hold stands", async () => {
    const path = join(dir, "tree.lock");
    writeFileSync(path, `${other.pid}\nrun 1 session old`);
    const asked: string[] = [];
    const ran = await withFileLock(
      path,
      5_000,
      async () => readFileSync(path, "utf8"),
      holdOf("run 1 session new", ["run 1 session old"], asked),
    );
    expect(ran).toBe(`${process.pid}\nrun 1 session new`);
    expect(asked).toEqual(["run 1 session old"]);
    expect(existsSync(path)).toBe(false);

    writeFileSync(path, `${other.pid}\nrun 2 session live`);
    await expect(withFileLock(path, 1_500, async () => "ran", holdOf("run 1 session new", []))).rejects.toThrow(
      `timed out waiting for lock ${path} (held by pid ${other.pid})`,
    );
    // Without a hold, a live pid is all that counts.
    writeFileSync(path, `${other.pid}\nrun 1 session old`);
    await expect(withFileLock(path, 300, async () => "ran")).rejects.toThrow(/timed out waiting for lock/);
    rmSync(path);
  });

  it("leaves a lock that is no longer its own when it ends", async () => {
    const path = join(dir, "taken.lock");
    const after = await withFileLock(
      path,
      1_000,
      async () => {
        // Its lock broken and taken meanwhile, as a master that took the run over takes a stopped one's.
        writeFileSync(path, `${other.pid}\nrun 1 session next`);
        return "ran";
      },
      holdOf("run 1 session old", []),
    );
    expect(after).toBe("ran");
    expect(readFileSync(path, "utf8")).toBe(`${other.pid}\nrun 1 session next`);
    rmSync(path);
  });
});
