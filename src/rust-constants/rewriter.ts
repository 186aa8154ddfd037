import { didYouMean } from "../core/suggest.js";
import { InputError, throwProblems } from "../core/errors.js";
import { lineAt } from "./lexer.js";
import { formatNumberLiteral, type NumberLiteral } from "./literal.js";
import { parseRustItems, type ConstantItem, type ValueNode } from "./parser.js";
import {
  resolvePrimitive,
  type AliasScope,
  type Resolution,
  type RustNumberType,
  type TypeAlias,
} from "./rust-types.js";

/** Where a parameter's value lives: a constant, and an element path for arrays and tuples. */
export interface ConstantTarget {
  param: string;
  constant: string;
  index: number[];
  type: "int" | "float";
  /** The Rust type stated in params.toml, for literals whose declared type cannot be resolved. */
  rustType?: RustNumberType | undefined;
}

/** A target's literal in the source: [start, end) covers the sign too. */
export interface LocatedTarget {
  target: ConstantTarget;
  line: number;
  start: number;
  end: number;
  literal: NumberLiteral;
  /** The literal's type: its suffix, else the declared type through aliases, else rust_type. */
  primitive: RustNumberType;
}

export interface Assignment {
  target: ConstantTarget;
  value: number;
}

/** A problem of one target in the constants file, with the target it is about. */
export class TargetProblem extends InputError {
  constructor(
    where: string,
    readonly target: ConstantTarget,
    /** What is wrong, without the target's label (`detail` has it). */
    readonly problem: string,
  ) {
    super(where, `${label(target)}: ${problem}`);
  }
}

/**
 * A target whose constant the constants file does not define (with the constants that come
 * closest, as `(did you mean …?)` or nothing): the parameter's table in params.toml is where to
 * fix it, which the caller that read params.toml names (src/engine-build/engine-builder.ts).
 */
export class ConstantNotFound extends TargetProblem {
  constructor(
    readonly file: string,
    target: ConstantTarget,
    readonly suggestion: string,
  ) {
    super(file, target, `constant ${target.constant} not found${suggestion}`);
  }
}

/**
 * Finds every target's literal, checking up front (before any build starts) that each
 * constant exists once at top level, that the index path leads to a plain number literal
 * (not a constant name, a `const fn` call, a cast, a bool or an expression), that the
 * literal's type matches the parameter's, and that its Rust type is known (`crateAliases`
 * are the crate's `type` aliases besides the file's own). Every target that fails is
 * returned as an InputError naming the file, line, parameter and constant.
 */
export function inspectTargets(
  source: string,
  targets: readonly ConstantTarget[],
  fileName: string,
  crateAliases: readonly TypeAlias[] = [],
): { located: LocatedTarget[]; problems: InputError[] } {
  const parsed = parseRustItems(source, fileName);
  const scope: AliasScope = { local: parsed.aliases.filter((a) => a.topLevel), crate: crateAliases };
  const located: LocatedTarget[] = [];
  const problems: InputError[] = [];
  for (const target of targets) {
    try {
      located.push(locateOne(source, parsed.constants, scope, target, fileName));
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      problems.push(error);
    }
  }
  return { located, problems };
}

/** inspectTargets, throwing when any target is bad. */
export function locateTargets(
  source: string,
  targets: readonly ConstantTarget[],
  fileName: string,
  crateAliases: readonly TypeAlias[] = [],
): LocatedTarget[] {
  const { located, problems } = inspectTargets(source, targets, fileName, crateAliases);
  throwProblems(problems);
  return located;
}

/**
 * The source with each assignment's literal replaced by its new value; every other byte is
 * kept. Int values must be integers that fit the literal's type; floats are written so rustc
 * reads a float. The suffix (`13i32`, `-3_i16`, `0.8f64`) is kept.
 */
export function rewriteConstants(
  source: string,
  assignments: readonly Assignment[],
  fileName: string,
  crateAliases: readonly TypeAlias[] = [],
): string {
  const located = locateTargets(
    source,
    assignments.map((a) => a.target),
    fileName,
    crateAliases,
  );
  const problems: InputError[] = [];
  const edits = located.flatMap((loc, i) => {
    const value = assignments[i]?.value ?? Number.NaN;
    const text = formatNumberLiteral(value, loc.literal, loc.primitive);
    if (typeof text === "string") return [{ ...loc, text }];
    problems.push(new TargetProblem(`${fileName}:${loc.line}`, loc.target, text.error));
    return [];
  });
  throwProblems(problems);
  edits.sort((x, y) => x.start - y.start);
  let out = "";
  let at = 0;
  for (const edit of edits) {
    if (edit.start < at) {
      throw new TargetProblem(
        `${fileName}:${edit.line}`,
        edit.target,
        "another parameter already targets this literal",
      );
    }
    out += source.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + source.slice(at);
}

function locateOne(
  source: string,
  items: readonly ConstantItem[],
  scope: AliasScope,
  target: ConstantTarget,
  fileName: string,
): LocatedTarget {
  const matches = items.filter((item) => item.name === target.constant);
  const item = matches[0];
  if (item === undefined) {
    const names = [...new Set(items.map((i) => i.name))];
    throw new ConstantNotFound(fileName, target, didYouMean(target.constant, names));
  }
  // Annotated so TypeScript narrows after each call.
  const fail: (at: number, detail: string) => never = (at, detail) => {
    throw new TargetProblem(`${fileName}:${lineAt(source, at)}`, target, detail);
  };
  if (matches.length > 1) {
    const lines = matches.map((m) => lineAt(source, m.nameStart)).join(", ");
    fail(item.nameStart, `constant ${target.constant} is defined ${matches.length} times (lines ${lines}); rename one`);
  }

  let node: ValueNode = item.value;
  let path = target.constant;
  for (const index of target.index) {
    if (node.kind === "other" || node.kind === "not-number")
      fail(node.start, `${path} is not a literal array or tuple: it is ${node.description}`);
    if (node.kind === "literal") fail(node.start, `${path} is a single number, so it has no element [${index}]`);
    const next: ValueNode | undefined = node.items[index];
    if (next === undefined) fail(node.start, `index ${index} is out of range: ${path} is ${sized(node)}`);
    node = next;
    path += `[${index}]`;
  }
  if (node.kind === "not-number")
    fail(node.start, `${path} is ${node.description}, not a number; only number literals can be tuned`);
  if (node.kind === "other")
    fail(node.start, `${path} is not a literal: it is ${node.description}; only plain number literals can be tuned`);
  if (node.kind !== "literal") return fail(node.start, `${path} is ${sized(node)}; set \`index\` to pick one`);
  if (node.literal.type !== target.type) {
    fail(
      node.start,
      `${path} is ${article(node.literal.type)} literal (\`${source.slice(node.start, node.end)}\`) ` +
        `but the parameter's type is "${target.type}"`,
    );
  }
  const type = literalType(node.literal, item, target, scope, path);
  if ("problem" in type) fail(node.start, type.problem);
  return {
    target,
    line: lineAt(source, node.start),
    start: node.start,
    end: node.end,
    literal: node.literal,
    primitive: type.primitive,
  };
}

/**
 * The literal's suffix, else its declared type through aliases; rust_type must agree with it, or
 * stands in when neither tells.
 */
function literalType(
  literal: NumberLiteral,
  item: ConstantItem,
  target: ConstantTarget,
  scope: AliasScope,
  path: string,
): Resolution {
  const found =
    literal.primitive === undefined
      ? resolvePrimitive(item.type, target.index, scope)
      : { primitive: literal.primitive };
  const stated = target.rustType;
  if (stated === undefined) {
    return "problem" in found
      ? {
          problem:
            `cannot tell the Rust type of ${path}: ${found.problem}; state it in ` +
            `params.toml, e.g. rust_type = "i32"`,
        }
      : found;
  }
  if ("problem" in found || found.primitive === stated) return { primitive: stated };
  return {
    problem:
      `rust_type is "${stated}" but ${path} is ${found.primitive} by its ` +
      `${literal.primitive === undefined ? "declared type" : "suffix"}`,
  };
}

export function label(target: ConstantTarget): string {
  return `parameter ${target.param} (constant ${target.constant}${target.index.map((i) => `[${i}]`).join("")})`;
}

function sized(node: { kind: "array" | "tuple"; items: readonly unknown[] }): string {
  return `${node.kind === "array" ? "an array" : "a tuple"} of ${node.items.length} elements`;
}

function article(type: "int" | "float"): string {
  return type === "int" ? "an int" : "a float";
}
