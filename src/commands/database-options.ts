import { existsSync } from "node:fs";
import { loadConfig } from "../config/config.js";
import type { DatabaseOptions } from "../postgres/connection.js";
import type { TuningConfig } from "../types/config.js";

export const DEFAULT_CONFIG_FILE = "config.toml";

/**
 * The config for commands that can do without one (a worker machine may have none): the
 * named file, else config.toml if it exists, else undefined.
 */
export function optionalConfig(configFile: string | undefined): TuningConfig | undefined {
  const file = configFile ?? DEFAULT_CONFIG_FILE;
  return configFile === undefined && !existsSync(file) ? undefined : loadConfig(file);
}

/** Database settings for commands that need only the database. */
export function databaseOptionsFrom(configFile: string | undefined): DatabaseOptions {
  return { configUrl: optionalConfig(configFile)?.database.url };
}
