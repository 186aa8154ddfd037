import { InputError } from "../core/errors.js";
import type { ParamType } from "../types/spsa.js";

/**
 * The SPSA input lines of OpenBench (`NAME, int, value, min, max, c_end, r_end`) and
 * fishtest (`NAME,value,min,max,c_end,r_end`). Their c_end is the perturbation at the last
 * iteration in the parameter's own units; here that is [spsa] c_end (in steps) × step, so
 * c_end = step × c_end(config) and back. r_end is one number for the whole run here
 * ([spsa] r_end), per line there.
 */
export type ToolFormat = "openbench" | "fishtest";

export interface ToolParam {
  name: string;
  type: ParamType;
  value: number;
  min: number;
  max: number;
  cEnd: number;
  rEnd: number;
}

export function formatToolLine(format: ToolFormat, p: ToolParam): string {
  const numbers = [p.value, p.min, p.max, p.cEnd, p.rEnd].map(shortNumber);
  return format === "openbench" ? [p.name, p.type, ...numbers].join(", ") : [p.name, ...numbers].join(",");
}

/** Up to 6 significant digits: the tools read these lines, and θ carries 17. */
function shortNumber(x: number): string {
  return String(Number(x.toPrecision(6)));
}

/**
 * Reads OpenBench or fishtest lines (told apart per line by their field count); blank lines
 * and `#` comments are skipped. fishtest has no type: a parameter whose value, min and max
 * are all integers is read as int. Every problem names the file and line.
 */
export function parseToolLines(text: string, file: string): { format: ToolFormat; param: ToolParam }[] {
  return text.split(/\r?\n/).flatMap((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") return [];
    const where = `${file}:${i + 1}`;
    const fields = line.split(",").map((f) => f.trim());
    if (fields.length !== 6 && fields.length !== 7) {
      throw new InputError(
        where,
        `expected 7 comma-separated fields (OpenBench: NAME, int|float, value, min, max, c_end, ` +
          `r_end) or 6 (fishtest: NAME,value,min,max,c_end,r_end), got ${fields.length}`,
      );
    }
    const format: ToolFormat = fields.length === 7 ? "openbench" : "fishtest";
    const [name = "", ...rest] = fields;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new InputError(where, `"${name}" is not a parameter name (letters, digits and _)`);
    const typeField = format === "openbench" ? rest.shift() : undefined;
    if (typeField !== undefined && typeField !== "int" && typeField !== "float")
      throw new InputError(where, `the type must be int or float, got "${typeField}"`);
    const labels = ["value", "min", "max", "c_end", "r_end"];
    const [value, min, max, cEnd, rEnd] = rest.map((text, j) => {
      const x = Number(text);
      if (text === "" || !Number.isFinite(x))
        throw new InputError(where, `${labels[j]} must be a number, got "${text}"`);
      return x;
    }) as [number, number, number, number, number];
    if (!(cEnd > 0) || !(rEnd > 0))
      throw new InputError(where, `c_end and r_end must be positive, got ${cEnd} and ${rEnd}`);
    const type = typeField ?? ([value, min, max].every(Number.isInteger) ? "int" : "float");
    return [{ format, param: { name, type, value, min, max, cEnd, rEnd } }];
  });
}
