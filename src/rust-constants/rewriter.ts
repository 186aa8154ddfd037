import { didYouMean } from "../core/suggest.js";
import { InputError } from "../core/errors.js";
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

/** Several bad parameters, reported together so that one edit of params.toml fixes them all. */
export class ParameterProblems extends InputError {
  constructor(
    readonly problems: readonly InputError[],
    fileName: string,
  ) {
    super(
      fileName,
      `${problems.length} parameters cannot be tuned:\n${problems.map((p) => `  ${p.message}`).join("\n")}`,
    );
  }
}

/** Throws the only problem as it is, or all of them as one ParameterProblems. */
export function throwProblems(problems: readonly InputError[], fileName: string): void {
  const [first] = problems;
  if (problems.length === 1 && first !== undefined) throw first;
  if (problems.length > 1) throw new ParameterProblems(problems, fileName);
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
  throwProblems(problems, fileName);
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
    problems.push(new InputError(`${fileName}:${loc.line}`, `${label(loc.target)}: ${text.error}`));
    return [];
  });
  throwProblems(problems, fileName);
  edits.sort((x, y) => x.start - y.start);
  let out = "";
  let at = 0;
  for (const edit of edits) {
    if (edit.start < at) {
      throw new InputError(
        `${fileName}:${edit.line}`,
        `${label(edit.target)}: another parameter already targets this literal`,
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
    throw new InputError(
      fileName,
      `${label(target)}: constant ${target.constant} not found${didYouMean(target.constant, names)}`,
    );
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
