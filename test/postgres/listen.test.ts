import { describe, expect, it } from "vitest";
import { parseListen } from "../../src/postgres/embedded.js";

describe("spsa db start --listen", () => {
  it.each([
    ["0.0.0.0", { addresses: "0.0.0.0", port: undefined }],
    ["0.0.0.0:5433", { addresses: "0.0.0.0", port: 5433 }],
    ["10.0.0.2,127.0.0.1:6000", { addresses: "10.0.0.2,127.0.0.1", port: 6000 }],
    ["*", { addresses: "*", port: undefined }],
    ["::1", { addresses: "::1", port: undefined }],
    ["[::]:5433", { addresses: "::", port: 5433 }],
  ])("reads %s", (text, expected) => {
    expect(parseListen(text)).toEqual(expected);
  });

  it.each([":5433", "0.0.0.0:70000", "0.0.0.0:0", "a b", "x'; rm -rf /"])("refuses %s in one line", (text) => {
    expect(() => parseListen(text)).toThrow(/^--listen .*: expected ADDR or ADDR:PORT/);
  });
});
