import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { copyFileAtomic, writeFileAtomic } from "../../src/fs/write-atomic.js";

const folder = () => mkdtempSync(join(tmpdir(), "write-atomic-"));

describe("writeFileAtomic", () => {
  it("replaces a file with the whole new content and leaves no temp file", () => {
    const dir = folder();
    const path = join(dir, "state.toml");
    writeFileSync(path, "old");
    const content = "x".repeat(3_000_000) + "end";
    writeFileAtomic(path, content);
    expect(readFileSync(path, "utf8")).toBe(content);
    writeFileAtomic(path, Buffer.from([1, 2, 3]));
    expect([...readFileSync(path)]).toEqual([1, 2, 3]);
    expect(readdirSync(dir)).toEqual(["state.toml"]);
  });

  it("sets the mode exactly, whatever the umask", () => {
    const dir = folder();
    writeFileAtomic(join(dir, "secret.json"), "{}", { mode: 0o600 });
    copyFileAtomic(join(dir, "secret.json"), join(dir, "engine"), { mode: 0o755 });
    expect(statSync(join(dir, "secret.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "engine")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(dir, "engine"), "utf8")).toBe("{}");
  });

  it("removes its temp file and keeps the target when the final rename fails", () => {
    const dir = folder();
    // A non-empty folder at the target: the content is written and flushed, then the rename fails.
    const target = join(dir, "target");
    mkdirSync(target);
    writeFileSync(join(target, "inside"), "kept");
    expect(() => writeFileAtomic(target, "new content")).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir)).toEqual(["target"]);
    expect(readFileSync(join(target, "inside"), "utf8")).toBe("kept");
  });

  it("removes its temp file when the copy's source is unreadable", () => {
    const dir = folder();
    writeFileSync(join(dir, "engine"), "old binary");
    expect(() => copyFileAtomic(join(dir, "missing"), join(dir, "engine"))).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual(["engine"]);
    expect(readFileSync(join(dir, "engine"), "utf8")).toBe("old binary");
  });

  it("never shows a reader in another process a partly written file", async () => {
    const dir = folder();
    const path = join(dir, "shared");
    const size = 2_000_000;
    writeFileSync(path, "a".repeat(size));
    // A real writer process alternates two large contents; every read here must see one of them whole.
    const module = pathToFileURL(resolve("dist/fs/write-atomic.js")).href;
    const script = `import { writeFileAtomic } from ${JSON.stringify(module)};
      for (let i = 0; i < 60; i++) writeFileAtomic(${JSON.stringify(path)}, (i % 2 ? "a" : "b").repeat(${size}));`;
    const writer = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "inherit" });
    const exited = new Promise<number | null>((done) => writer.on("exit", done));
    let running = true;
    void exited.then(() => (running = false));
    let reads = 0;
    while (running) {
      const text = readFileSync(path, "latin1");
      expect(text.length).toBe(size);
      expect(text === "a".repeat(size) || text === "b".repeat(size)).toBe(true);
      reads++;
      await new Promise((next) => setImmediate(next));
    }
    expect(await exited).toBe(0);
    expect(reads).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual(["shared"]);
  });
});
