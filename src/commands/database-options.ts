import { existsSync } from "node:fs";
import { loadConfig } from "../config/config.js";
import type { DatabaseOptions } from "../db/connection.js";

export const DEFAULT_CONFIG_FILE = "config.toml";

/**
 * Database settings for commands that need only the database: the config file is
 * optional there (a worker machine may have none), unless the user named one.
 */
export function databaseOptionsFrom(configFile: string | undefined): DatabaseOptions {
  const file = configFile ?? DEFAULT_CONFIG_FILE;
  if (configFile === undefined && !existsSync(file)) return {};
  return { configUrl: loadConfig(file).database.url };
}
