import { readFileSync } from "node:fs";

/** The package version, read once from package.json (two levels above dist/cli or src/cli). */
export function packageVersion(): string {
  const url = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}
