import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { inspectTargets, type ConstantTarget, type LocatedTarget } from "../rust-constants/rewriter.js";
import { parseRustItems, type ValueNode } from "../rust-constants/parser.js";
import { lineAt } from "../rust-constants/lexer.js";
import { readCrateAliases } from "../rust-constants/crate-aliases.js";
import { typeRange } from "../rust-constants/rust-types.js";
import type { ParamEntry } from "./params-writer.js";
import { elementSuffix } from "./element-names.js";

/**
 * Every number literal at the top level of a constants file, alone or as an element of an
 * array or tuple (at any depth), as a params.toml entry with a proposed range and step, named
 * as the engine's UCI option of it is (elementSuffix: `KNIGHT_VALUE_MG`, `ALPHA_PRUNE_MARGINS_1`).
 * Values that are not literals (derived from another constant, built by a `const fn`,
 * casts, expressions, repeat arrays) and literals whose Rust type cannot be told are skipped,
 * each with the reason the tuner itself would give.
 */
export function paramsFromConstants(source: string, file: string): { entries: ParamEntry[]; skipped: string[] } {
  const parsed = parseRustItems(source, file);
  const names = parsed.constants.map((c) => c.name);
  const targets: ConstantTarget[] = [];
  /** One line per constant or element left out: what, where, why. */
  const skipped: string[] = [];
  for (const item of parsed.constants) {
    const walk = (node: ValueNode, index: number[], param: string): void => {
      if (node.kind === "literal") {
        targets.push({ param, constant: item.name, index, type: node.literal.type });
        return;
      }
      if ("items" in node) {
        node.items.forEach((child, i) => walk(child, [...index, i], param + elementSuffix(node, i)));
        return;
      }
      const what = `${item.name}${index.map((i) => `[${i}]`).join("")}`;
      const text = source.slice(node.start, node.end);
      const from = names.filter((name) => name !== item.name && new RegExp(`\\b${name}\\b`).test(text));
      const derived =
        from.length > 0 && !node.description.startsWith("derived") ? `derived from ${from.join(", ")}: ` : "";
      // The tuner's own words for why it cannot rewrite this, without its advice on rewriting it.
      skipped.push(
        `${what} (line ${lineAt(source, node.start)}): ${derived}${node.description.replace(/; write .*$/, "")}`,
      );
    };
    walk(item.value, [], item.name);
  }
  const { located, problems } = inspectTargets(source, targets, file, readCrateAliases(crateSourceDir(file)));
  skipped.push(...problems.map((problem) => problem.message));
  const taken = new Set<string>();
  const entries = located.flatMap((loc) => {
    if (taken.has(loc.target.param)) {
      skipped.push(`${loc.target.param} (line ${loc.line}): the parameter name is taken by another constant`);
      return [];
    }
    taken.add(loc.target.param);
    return [proposeEntry(loc, source.slice(loc.start, loc.end), file)];
  });
  return { entries, skipped };
}

/** The crate's `src/` (the nearest folder above the file with a Cargo.toml), where `type` aliases may live. */
function crateSourceDir(file: string): string {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "Cargo.toml"))) return join(dir, "src");
  }
  return dirname(file);
}

/**
 * A starting range: half to twice the value (the sign kept), ±20 for a zero int and ±1 for
 * a zero float, cut to the literal's Rust type; the step is 1/20 of the range (at least 1
 * for ints, so plus and minus differ).
 */
function proposeEntry(loc: LocatedTarget, literalText: string, file: string): ParamEntry {
  const { target } = loc;
  const value = literalValue(literalText, loc.literal.suffix);
  const int = target.type === "int";
  const { min, max, step } = proposeRange(value, int, typeRange(loc.primitive));
  const element = target.index.length > 0;
  return {
    name: target.param,
    type: target.type,
    value,
    min,
    max,
    step,
    constant: element ? target.constant : undefined,
    index: element ? target.index : undefined,
    about: [
      `${basename(file)}:${loc.line}: ` +
        `${target.constant}${target.index.map((i) => `[${i}]`).join("")} = ${literalText} (${loc.primitive})`,
    ],
    boundsNote:
      value === 0
        ? `proposed: ${int ? "±20" : "±1"} around 0${min > -20 ? `, cut to ${loc.primitive}` : ""}; edit`
        : "proposed: half to twice the value; edit",
    stepNote: "proposed: 1/20 of [min, max]",
  };
}

/**
 * Half to twice the value (the sign kept), ±20 for a zero int and ±1 for a zero float, cut
 * to [low, high]; the step is 1/20 of the range (at least 1 for ints, so plus and minus differ).
 */
export function proposeRange(
  value: number,
  int: boolean,
  [low, high]: readonly [number, number],
): { min: number; max: number; step: number } {
  let [min, max] =
    value === 0 ? (int ? [-20, 20] : [-1, 1]) : value > 0 ? [value / 2, value * 2] : [value * 2, value / 2];
  if (int) [min, max] = [Math.floor(min), Math.ceil(max)];
  [min, max] = [Math.max(min, low), Math.min(max, high)];
  return { min, max, step: int ? Math.max(1, Math.round((max - min) / 20)) : (max - min) / 20 };
}

/** The number a literal's text stands for: sign, `_` separators, 0x/0o/0b, exponent; suffix dropped. */
function literalValue(text: string, suffix: string): number {
  const negative = text.startsWith("-");
  const digits = text
    .slice(negative ? 1 : 0, text.length - suffix.length)
    .trim()
    .replace(/_/g, "");
  const magnitude = Number(digits);
  return negative ? -magnitude : magnitude;
}
