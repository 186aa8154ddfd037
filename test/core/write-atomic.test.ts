import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { copyFileAtomic, writeFileAtomic } from "../../src/core/write-atomic.js";
import { canSwitchUser, findings, nodeAs, notRootReason } from "../support/other-user.js";

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
    const module = pathToFileURL(resolve("dist/core/write-atomic.js")).href;
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

  it.skipIf(!canSwitchUser)(
    `creates a secret 0600 from the start: a watcher as another user on a 0755 folder never reads it (skipped unless ${notRootReason})`,
    async () => {
      const dir = folder();
      chmodSync(dir, 0o755);
      const secret = "secret-".concat(randomBytes(8).toString("hex"));
      // The other user lists the folder and reads every file in it as fast as it can, until told to stop.
      // The other user opens every file in the folder as soon as it appears (the mode is checked at open
      // only), keeps it open a while and reads it again and again, until told to stop.
      const watcher = nodeAs(
        `
      import { closeSync, existsSync, openSync, readdirSync, readSync } from "node:fs";
      const [dir, secret, stop] = process.argv.slice(1);
      let leaks = 0, publicReads = 0;
      let open = [];
      const head = Buffer.alloc(64);
      console.log("ready");
      while (!existsSync(stop)) {
        for (const name of readdirSync(dir)) {
          try { open.push({ fd: openSync(dir + "/" + name, "r"), age: 0 }); } catch {}
        }
        for (const file of open) {
          const text = head.toString("utf8", 0, readSync(file.fd, head, 0, 64, 0));
          if (text.includes(secret)) leaks++;
          else if (text.includes("public")) publicReads++;
          if (++file.age > 20) closeSync(file.fd);
        }
        open = open.filter((file) => file.age <= 20);
      }
      console.log(JSON.stringify({ leaks, publicReads }));`,
        [dir, secret, join(dir, "stop")],
      );
      await new Promise<void>((ready) => watcher.stdout?.once("data", () => ready()));
      // Large, so that each write lasts long enough for the watcher to try the file while it is written.
      const padding = "x".repeat(4 << 20);
      for (let i = 0; i < 60; i++) {
        writeFileAtomic(join(dir, "connection.json"), `${secret} ${padding} ${i}`, { mode: 0o600 });
        // The control: the watcher does read what it may read (a 0644 file written the same way).
        writeFileAtomic(join(dir, "params.toml"), `public ${i}`, { mode: 0o644 });
      }
      writeFileSync(join(dir, "stop"), "");
      const result = await watcher;
      const { leaks, publicReads } = findings<{ leaks: number; publicReads: number }>(result);
      expect(publicReads).toBeGreaterThan(0);
      expect(leaks).toBe(0);
    },
  );

  it("replaces a symlink planted at the target instead of writing through it", () => {
    const dir = folder();
    writeFileSync(join(dir, "canary"), "canary");
    symlinkSync(join(dir, "canary"), join(dir, "connection.json"));
    writeFileAtomic(join(dir, "connection.json"), "new");
    expect(readFileSync(join(dir, "canary"), "utf8")).toBe("canary");
    expect(lstatSync(join(dir, "connection.json")).isFile()).toBe(true);
    expect(statSync(join(dir, "connection.json")).mode & 0o777).toBe(0o600);
  });
});
