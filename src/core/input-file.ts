import { readFileSync } from "node:fs";
import { InputError } from "./errors.js";

/** A text file the user named; one that cannot be read is bad input naming the file. */
export function readInputFile(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    throw new InputError(file, `cannot read the ${what}`);
  }
}
