import { InputError } from "../core/errors.js";
import { lexRust, lineAt, type Token } from "./lexer.js";
import { readNumberLiteral, type NumberLiteral } from "./literal.js";
import type { TypeAlias, TypeNode } from "./rust-types.js";

/**
 * The value of a constant as a tree: number literals (the only things that can be tuned),
 * arrays and tuples of values, literals that are not numbers (bools, strings, chars), and
 * everything else ("other": a constant name, a `const fn` call, an expression, a cast,
 * `[0; 8]`), kept with a description for error messages.
 */
export type ValueNode =
  | { kind: "literal"; start: number; end: number; literal: NumberLiteral }
  | { kind: "array" | "tuple"; start: number; end: number; items: ValueNode[] }
  | { kind: "not-number"; start: number; end: number; description: string }
  | { kind: "other"; start: number; end: number; description: string };

export interface ConstantItem {
  name: string;
  /** Offset of the name, for line numbers. */
  nameStart: number;
  type: TypeNode;
  value: ValueNode;
}

export interface ParsedFile {
  /** Top-level `const` and `static` items. */
  constants: ConstantItem[];
  /** `type` aliases at the top level and inside `mod { }` blocks. */
  aliases: TypeAlias[];
}

const OPENERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/**
 * Finds every top-level `const` and `static` item (any visibility, `static mut` too, also
 * inside a top-level macro invocation's body) and every module-level `type` alias. A `const` is an
 * item only where an item can start (file
 * start, after `;`, a `{ }` block or an attribute, after `pub`): in `fn pick<const N: usize>`,
 * `struct W<const N: usize>;`, `impl<const N: usize>`, a `where` clause or a `const fn`
 * header it is not, and reading it as one would take the next item's value for N's.
 * Items inside `{}` blocks (fn bodies, `mod`, `impl`) are skipped: they are not the file's
 * constants and would otherwise look like duplicates.
 */
export function parseRustItems(source: string, fileName: string): ParsedFile {
  const tokens = lexRust(source, fileName);
  const closer = matchBrackets(tokens, source, fileName);
  const result: ParsedFile = { constants: [], aliases: [] };
  walkItems(0, tokens.length, true);
  return result;

  function walkItems(from: number, to: number, topLevel: boolean): void {
    let itemStart = true;
    let i = from;
    while (i < to) {
      const t = tokens[i];
      const next = tokens[i + 1]?.text;
      if (t === undefined) break;
      if (t.text === "#" && (next === "[" || (next === "!" && tokens[i + 2]?.text === "["))) {
        // An attribute belongs to what follows: whether an item starts there is unchanged.
        const open = next === "[" ? i + 1 : i + 2;
        i = (closer.get(open) ?? open) + 1;
        continue;
      }
      if (itemStart && t.kind === "ident") {
        if (t.text === "pub") {
          i = next === "(" ? (closer.get(i + 1) ?? i + 1) + 1 : i + 1;
          continue;
        }
        const constant = t.text === "const" || t.text === "static" ? readItem(i) : undefined;
        if (constant) {
          if (topLevel) result.constants.push(constant.item);
          i = constant.next;
          continue;
        }
        if (t.text === "type") {
          i = readAlias(i, topLevel);
          continue;
        }
        const body = tokens[i + 2]?.text === "{" ? i + 2 : undefined;
        if (t.text === "mod" && tokens[i + 1]?.kind === "ident" && body !== undefined) {
          const end = closer.get(body) ?? body;
          walkItems(body + 1, end, false);
          i = end + 1;
          continue;
        }
        const opener = tokens[i + 2]?.text ?? "";
        if (next === "!" && opener in OPENERS) {
          // A macro invocation (`tunables! { … }`, as compact engines declare their tunables):
          // the constants it declares are read as items of the level it stands on.
          const end = closer.get(i + 2) ?? i + 2;
          walkItems(i + 3, end, topLevel);
          i = end + 1;
          continue;
        }
      }
      // A `;` or a `{ }` block (a body) ends an item; any other token is inside one.
      itemStart = t.text === ";" || t.text === "{";
      i = (closer.get(i) ?? i) + 1;
    }
  }

  /** `const NAME: TYPE = VALUE;` starting at the keyword, or undefined for `const fn` and the like. */
  function readItem(keyword: number): { item: ConstantItem; next: number } | undefined {
    let j = keyword + 1;
    if (tokens[keyword]?.text === "static" && tokens[j]?.text === "mut") j++;
    const name = tokens[j];
    if (name?.kind !== "ident" || tokens[j + 1]?.text !== ":") return undefined;
    const equals = findOutsideAngles(j + 2, "=");
    const semicolon = equals === undefined ? undefined : findAtDepth(equals + 1, tokens.length, ";");
    if (equals === undefined || semicolon === undefined) {
      throw new InputError(
        `${fileName}:${lineAt(source, name.start)}`,
        `cannot read the definition of ${name.text} (expected \`= value;\`)`,
      );
    }
    const item = {
      name: name.text,
      nameStart: name.start,
      type: parseType(j + 2, equals),
      value: parseValue(equals + 1, semicolon),
    };
    return { item, next: semicolon + 1 };
  }

  /** `type NAME = TYPE;` at the keyword; returns the index after it. Generic aliases are not recorded. */
  function readAlias(keyword: number, topLevel: boolean): number {
    const name = tokens[keyword + 1];
    const semicolon = findAtDepth(keyword + 1, tokens.length, ";") ?? tokens.length;
    if (name?.kind === "ident" && tokens[keyword + 2]?.text === "=") {
      const where = `${fileName}:${lineAt(source, name.start)}`;
      result.aliases.push({ name: name.text, type: parseType(keyword + 3, semicolon), where, topLevel });
    }
    return semicolon + 1;
  }

  /** The first `text` outside brackets and `<…>` from `from` on: the `=` after `Foo<Item = u8>`. */
  function findOutsideAngles(from: number, text: string): number | undefined {
    let angles = 0;
    for (let k = from; k < tokens.length; k = (closer.get(k) ?? k) + 1) {
      const t = tokens[k];
      if (t?.text === "<") angles++;
      // `->` in `fn() -> u8` is not a closing angle.
      else if (t?.text === ">" && tokens[k - 1]?.text !== "-") angles = Math.max(0, angles - 1);
      else if (t?.text === text && angles === 0) return k;
    }
    return undefined;
  }

  /** The declared type spanning tokens [from, to). */
  function parseType(from: number, to: number): TypeNode {
    let k = from;
    // A reference is transparent: `&'static [u8]` holds u8 elements.
    while (tokens[k]?.text === "&" || tokens[k]?.kind === "lifetime" || tokens[k]?.text === "mut") k++;
    const first = tokens[k];
    const last = tokens[to - 1];
    if (first === undefined || last === undefined || k >= to) return { kind: "unknown", text: "" };
    if ((first.text === "(" || first.text === "[") && closer.get(k) === to - 1) {
      const semicolon = first.text === "[" ? findAtDepth(k + 1, to - 1, ";") : undefined;
      if (first.text === "[") return { kind: "array", element: parseType(k + 1, semicolon ?? to - 1) };
      const parts = splitAtCommas(k + 1, to - 1);
      const items = parts.ranges.map(([a, b]) => parseType(a, b));
      if (items.length === 1 && !parts.trailingComma) return items[0] ?? { kind: "unknown", text: "" };
      return { kind: "tuple", items };
    }
    const path = tokens.slice(k, to);
    const isPath = path.every((t) => t.kind === "ident" || t.text === ":") && last.kind === "ident";
    return isPath
      ? { kind: "name", name: last.text }
      : { kind: "unknown", text: source.slice(first.start, last.end).replace(/\s+/g, " ") };
  }

  /** First token with this text in [from, to) outside any brackets. */
  function findAtDepth(from: number, to: number, text: string): number | undefined {
    for (let k = from; k < to; k = (closer.get(k) ?? k) + 1) {
      if (tokens[k]?.text === text) return k;
    }
    return undefined;
  }

  /** The value spanning tokens [from, to). */
  function parseValue(from: number, to: number): ValueNode {
    const first = tokens[from];
    const last = tokens[to - 1];
    if (first === undefined || last === undefined || to <= from) {
      return { kind: "other", start: first?.start ?? 0, end: first?.start ?? 0, description: "an empty expression" };
    }
    const span = { start: first.start, end: last.end };
    if (first.text === "&" && to - from > 1) {
      // `static X: &[i32] = &[1, 2];` — the reference is transparent for tuning.
      const inner = parseValue(from + 1, to);
      return inner.kind === "other" ? other(from, to) : inner;
    }
    if (first.kind === "number" && to === from + 1)
      return { kind: "literal", ...span, literal: readNumberLiteral(first.text) };
    if (first.text === "-" && tokens[from + 1]?.kind === "number" && to === from + 2) {
      return { kind: "literal", ...span, literal: readNumberLiteral(tokens[from + 1]?.text ?? "") };
    }
    if ((first.text === "[" || first.text === "(") && closer.get(from) === to - 1) {
      if (first.text === "[" && findAtDepth(from + 1, to - 1, ";") !== undefined) return other(from, to);
      const parts = splitAtCommas(from + 1, to - 1);
      const items = parts.ranges.map(([a, b]) => parseValue(a, b));
      if (first.text === "(" && items.length === 1 && !parts.trailingComma) return items[0] ?? other(from, to);
      return { kind: first.text === "[" ? "array" : "tuple", ...span, items };
    }
    return other(from, to);
  }

  function splitAtCommas(from: number, to: number): { ranges: [number, number][]; trailingComma: boolean } {
    const ranges: [number, number][] = [];
    let start = from;
    for (let k = from; k < to; k = (closer.get(k) ?? k) + 1) {
      if (tokens[k]?.text === ",") {
        ranges.push([start, k]);
        start = k + 1;
      }
    }
    if (start < to) ranges.push([start, to]);
    return { ranges, trailingComma: to > from && tokens[to - 1]?.text === "," };
  }

  function other(from: number, to: number): ValueNode {
    const start = tokens[from]?.start ?? 0;
    const end = tokens[to - 1]?.end ?? start;
    const snippet = source.slice(start, end).replace(/\s+/g, " ");
    const shown = `\`${snippet.length > 60 ? `${snippet.slice(0, 57)}...` : snippet}\``;
    const what = to === from + 1 ? literalKind(tokens[from]) : undefined;
    if (what !== undefined) return { kind: "not-number", start, end, description: `${what} (${shown})` };
    return { kind: "other", start, end, description: describe(tokens.slice(from, to), shown) };
  }
}

/** "a bool", "a string" or "a char" for a literal that is not a number. */
function literalKind(token: Token | undefined): string | undefined {
  if (token?.kind === "string" || token?.kind === "char") return `a ${token.kind}`;
  return token?.text === "true" || token?.text === "false" ? "a bool" : undefined;
}

/** Words for what a non-literal value is, so the error says why it cannot be tuned. */
function describe(tokens: Token[], shown: string): string {
  const isPath = tokens.every((t, i) => (i % 3 === 0 ? t.kind === "ident" : t.text === ":"));
  if (isPath && tokens.length % 3 === 1) return `derived from another constant (${shown})`;
  if (tokens.some((t) => t.text === "as")) return `a cast (${shown}); write a typed literal such as \`5i32\` instead`;
  const call = tokens.findIndex((t) => t.text === "(");
  // A path, possibly with a turbofish: `scaled(2)`, `eval::scale::<3>(5)`.
  const isCallee = (t: Token): boolean =>
    t.kind === "ident" || t.kind === "number" || [":", "<", ">", ","].includes(t.text);
  if (call > 0 && tokens.slice(0, call).every(isCallee)) return `built by a function call (${shown})`;
  if (tokens[0]?.text === "[" && tokens.some((t) => t.text === ";"))
    return `a repeat expression (${shown}); write the elements out`;
  return `an expression (${shown})`;
}

/** Offsets of matching brackets: token index of an opener → token index of its closer. */
function matchBrackets(tokens: Token[], source: string, fileName: string): Map<number, number> {
  const closer = new Map<number, number>();
  const stack: number[] = [];
  tokens.forEach((t, i) => {
    if (t.kind !== "punct") return;
    if (t.text in OPENERS) {
      stack.push(i);
    } else if (t.text === ")" || t.text === "]" || t.text === "}") {
      const open = stack.pop();
      const opener = open === undefined ? undefined : tokens[open];
      if (open === undefined || opener === undefined || OPENERS[opener.text] !== t.text) {
        throw new InputError(`${fileName}:${lineAt(source, t.start)}`, `unbalanced \`${t.text}\``);
      }
      closer.set(open, i);
    }
  });
  const unclosed = stack.pop();
  if (unclosed !== undefined) {
    throw new InputError(
      `${fileName}:${lineAt(source, tokens[unclosed]?.start ?? 0)}`,
      `unclosed \`${tokens[unclosed]?.text}\``,
    );
  }
  return closer;
}
