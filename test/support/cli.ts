import { fileURLToPath } from "node:url";
import { execa } from "execa";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const SPSA_BIN = fileURLToPath(new URL("../../bin/spsa.js", import.meta.url));
export const COMPETE_BIN = fileURLToPath(new URL("../../bin/compete.js", import.meta.url));

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved, for assertion messages. */
  all: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  cwd?: string;
  timeout?: number;
}

/** Runs a built CLI (npm test builds dist/ first) as a real process. */
export async function runCli(bin: string, args: string[], options: CliOptions = {}): Promise<CliResult> {
  const result = await execa("node", [bin, ...args], {
    reject: false,
    all: true,
    cwd: options.cwd ?? ROOT,
    env: options.env,
    timeout: options.timeout,
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr, all: result.all };
}

export const spsa = (args: string[], options?: CliOptions) => runCli(SPSA_BIN, args, options);
export const compete = (args: string[], options?: CliOptions) => runCli(COMPETE_BIN, args, options);
