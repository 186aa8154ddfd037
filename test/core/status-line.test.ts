import { describe, expect, it } from "vitest";
import { progressBar } from "../../src/core/progress-bar.js";
import { StatusLine } from "../../src/core/status-line.js";

function stream(isTTY: boolean) {
  const written: string[] = [];
  return {
    written,
    stream: { isTTY, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream,
  };
}

describe("StatusLine", () => {
  it("on a terminal rewrites one line; clear erases it so a message takes its place", () => {
    const { written, stream: tty } = stream(true);
    const line = new StatusLine(tty);
    line.update("a");
    line.update("b");
    line.clear();
    line.clear();
    expect(written).toEqual(["\r\x1b[2Ka", "\r\x1b[2Kb", "\r\x1b[2K"]);
    line.update("c");
    line.done();
    expect(written.slice(3)).toEqual(["\r\x1b[2Kc", "\n"]);
  });

  it("elsewhere writes plain lines at most every quietMs and nothing on clear", () => {
    const { written, stream: log } = stream(false);
    const line = new StatusLine(log, 60_000);
    line.update("a");
    line.update("b");
    line.clear();
    expect(written).toEqual(["a\n"]);
  });
});

describe("progressBar", () => {
  it("fills in proportion and stays within its width", () => {
    expect(progressBar(0, 55)).toBe(`[${".".repeat(20)}]`);
    expect(progressBar(27, 55)).toBe(`[${"#".repeat(10)}${".".repeat(10)}]`);
    expect(progressBar(55, 55, 10)).toBe(`[${"#".repeat(10)}]`);
    expect(progressBar(70, 55, 10)).toBe(`[${"#".repeat(10)}]`);
    expect(progressBar(1, 0, 4)).toBe("[....]");
  });
});
