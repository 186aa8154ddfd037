import { describe, expect, it } from "vitest";
import { allowedHosts, cookieValue, isLoopback } from "../../src/dashboard/access.js";
import { publicConfig } from "../../src/dashboard/public-config.js";
import { readDashboardToken } from "../../src/dashboard/token.js";
import { InputError } from "../../src/core/errors.js";

describe("dashboard access rules", () => {
  it("knows loopback addresses from the others", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LocalHost"].map(isLoopback)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(
      ["0.0.0.0", "::", "192.168.1.5", "example.org", "127.0.0.1.example.org", "localhost.example.org"].map(isLoopback),
    ).toEqual([false, false, false, false, false, false]);
  });

  it("answers to its loopback names, its address and the names given, at its port only", () => {
    const hosts = allowedHosts("192.168.1.5", 8080, ["Tuner.Example"]);
    expect([...hosts].sort()).toEqual([
      "127.0.0.1:8080",
      "192.168.1.5:8080",
      "[::1]:8080",
      "localhost:8080",
      "tuner.example:8080",
    ]);
    // Port 80 may be left out of a Host header.
    expect(allowedHosts("127.0.0.1", 80).has("localhost")).toBe(true);
  });

  it("derives the cookie from the token, so the cookie is not the token", () => {
    expect(cookieValue("token-1234")).not.toContain("token-1234");
    expect(cookieValue("token-1234")).toBe(cookieValue("token-1234"));
    expect(cookieValue("token-1234")).not.toBe(cookieValue("token-1235"));
  });

  it("takes the token from the environment, refusing a short one", () => {
    expect(readDashboardToken(undefined, {})).toBeUndefined();
    expect(readDashboardToken(undefined, { SPSA_DASHBOARD_TOKEN: "long-enough" })).toBe("long-enough");
    expect(() => readDashboardToken(undefined, { SPSA_DASHBOARD_TOKEN: "short" })).toThrow(InputError);
  });

  it("serves a run config without [database] or any key that may hold a credential, at any depth", () => {
    const config = {
      spsa: { alpha: 0.602, c: 2 },
      database: { url: "postgres://u:pw@h/db", pollIntervalMs: 1000 },
      engine: { options: [{ name: "Hash", value: 16 }], api_token: "t", dbPassword: "p", url: "postgres://u:pw@h/db" },
    };
    expect(publicConfig(config)).toEqual({
      spsa: { alpha: 0.602, c: 2 },
      engine: { options: [{ name: "Hash", value: 16 }] },
    });
  });
});
