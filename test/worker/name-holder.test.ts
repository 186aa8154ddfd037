import { execFileSync } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import type { NameHolder } from "../../src/db/workers.js";
import { holderAlive } from "../../src/worker/name-holder.js";

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(execFileSync("sh", ["-c", "sh -c 'echo $$'"], { encoding: "utf8" }).trim());
}

describe("whether a name's holder is alive", () => {
  const here = hostname();
  const holder = (fields: Partial<NameHolder>): NameHolder => ({
    host: here,
    pid: process.ppid,
    sessionId: "s",
    secondsSinceSeen: 1,
    ...fields,
  });

  it("on this host: its pid decides, even with a fresh heartbeat", () => {
    expect(holderAlive(holder({ pid: process.ppid }), 10_000)).toBe(true);
    expect(holderAlive(holder({ pid: deadPid() }), 10_000)).toBe(false);
    // A process cannot be its own live predecessor: after a container restart the pid repeats.
    expect(holderAlive(holder({ pid: process.pid }), 10_000)).toBe(false);
  });

  it("on another host: a heartbeat missed three times means dead", () => {
    expect(holderAlive(holder({ host: "elsewhere", pid: deadPid(), secondsSinceSeen: 29 }), 10_000)).toBe(true);
    expect(holderAlive(holder({ host: "elsewhere", secondsSinceSeen: 31 }), 10_000)).toBe(false);
    expect(holderAlive(holder({ secondsSinceSeen: 31 }), 10_000)).toBe(false);
  });
});
