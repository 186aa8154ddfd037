import { didYouMean } from "../config/suggest.js";
import { InputError } from "../errors.js";
import { lineAt } from "./constants-lexer.js";
import { formatNumberLiteral, isPrimitiveNumberType, type NumberLiteral } from "./constants-literal.js";
import { parseConstants, type ConstantItem, type ValueNode } from "./constants-parser.js";

/** Where a parameter's value lives: a constant, and an element path for arrays and tuples. */
export interface ConstantTarget {
  param: string;
  constant: string;
  index: number[];
  type: "int" | "float";
}

/** A target's literal in the source: [start, end) covers the sign too. */
export interface LocatedTarget {
  target: ConstantTarget;
  line: number;
  start: number;
  end: number;
  literal: NumberLiteral;
  /** The primitive type the literal has (from its suffix or the declared type), if known. */
  primitive: string | undefined;
}

export interface Assignment {
  target: ConstantTarget;
  value: number;
}

/**
 * Finds every target's literal, checking up front (before any build starts) that each
 * constant exists once at top level, that the index path leads to a plain number literal
 * (not a constant name, a `const fn` call, a cast or an expression) and that the literal's
 * type matches the parameter's. Throws an InputError naming the file, line, constant and
 * parameter otherwise.
 */
export function locateTargets(source: string, targets: readonly ConstantTarget[], fileName: string): LocatedTarget[] {
  const items = parseConstants(source, fileName);
  return targets.map((target) => locateOne(source, items, target, fileName));
}

/**
 * The source with each assignment's literal replaced by its new value; every other byte is
 * kept. Int values must be integers that fit the literal's type; floats are written so rustc
 * reads a float. The suffix (`13i32`, `-3_i16`, `0.8f64`) is kept.
 */
export function rewriteConstants(source: string, assignments: readonly Assignment[], fileName: string): string {
  const located = locateTargets(source, assignments.map((a) => a.target), fileName);
  const edits = located.map((loc, i) => {
    const value = assignments[i]?.value ?? Number.NaN;
    const text = formatNumberLiteral(value, loc.literal, loc.primitive);
    if (typeof text !== "string") throw new InputError(`${fileName}:${loc.line}`, `${label(loc.target)}: ${text.error}`);
    return { ...loc, text };
  });
  edits.sort((x, y) => x.start - y.start);
  let out = "";
  let at = 0;
  for (const edit of edits) {
    if (edit.start < at) {
      throw new InputError(`${fileName}:${edit.line}`, `${label(edit.target)}: another parameter already targets this literal`);
    }
    out += source.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + source.slice(at);
}

function locateOne(source: string, items: readonly ConstantItem[], target: ConstantTarget, fileName: string): LocatedTarget {
  const matches = items.filter((item) => item.name === target.constant);
  const item = matches[0];
  if (item === undefined) {
    const names = [...new Set(items.map((i) => i.name))];
    throw new InputError(fileName, `${label(target)}: constant ${target.constant} not found${didYouMean(target.constant, names)}`);
  }
  // Annotated so TypeScript narrows after each call.
  const fail: (at: number, detail: string) => never = (at, detail) => {
    throw new InputError(`${fileName}:${lineAt(source, at)}`, `${label(target)}: ${detail}`);
  };
  if (matches.length > 1) {
    const lines = matches.map((m) => lineAt(source, m.nameStart)).join(", ");
    fail(item.nameStart, `constant ${target.constant} is defined ${matches.length} times (lines ${lines}); rename one`);
  }

  let node: ValueNode = item.value;
  let path = target.constant;
  for (const index of target.index) {
    if (node.kind === "other") fail(node.start, `${path} is not a literal array or tuple: it is ${node.description}`);
    if (node.kind === "literal") fail(node.start, `${path} is a single number, so it has no element [${index}]`);
    const next: ValueNode | undefined = node.items[index];
    if (next === undefined) fail(node.start, `index ${index} is out of range: ${path} is ${sized(node)}`);
    node = next;
    path += `[${index}]`;
  }
  if (node.kind !== "literal") {
    return fail(
      node.start,
      node.kind === "other"
        ? `${path} is not a literal: it is ${node.description}; only plain number literals can be tuned`
        : `${path} is ${sized(node)}; set \`index\` to pick one`,
    );
  }
  if (node.literal.type !== target.type) {
    fail(node.start, `${path} is ${article(node.literal.type)} literal (\`${source.slice(node.start, node.end)}\`) but the parameter's type is "${target.type}"`);
  }
  return {
    target,
    line: lineAt(source, node.start),
    start: node.start,
    end: node.end,
    literal: node.literal,
    primitive: node.literal.primitive ?? declaredPrimitive(item.typeNames),
  };
}

/** `u8` for `u8`, `[u8; 4]` or `(u8, u8)`; undefined when aliases or mixed types hide it. */
function declaredPrimitive(typeNames: readonly string[]): string | undefined {
  const names = new Set(typeNames);
  const [only] = names;
  return names.size === 1 && only !== undefined && isPrimitiveNumberType(only) ? only : undefined;
}

function label(target: ConstantTarget): string {
  return `parameter ${target.param} (constant ${target.constant}${target.index.map((i) => `[${i}]`).join("")})`;
}

function sized(node: { kind: "array" | "tuple"; items: readonly unknown[] }): string {
  return `${node.kind === "array" ? "an array" : "a tuple"} of ${node.items.length} elements`;
}

function article(type: "int" | "float"): string {
  return type === "int" ? "an int" : "a float";
}
