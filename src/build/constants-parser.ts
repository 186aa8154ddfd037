import { InputError } from "../errors.js";
import { lexRust, lineAt, type Token } from "./constants-lexer.js";
import { readNumberLiteral, type NumberLiteral } from "./constants-literal.js";

/**
 * The value of a constant as a tree: literals (the only things that can be tuned), arrays
 * and tuples of values, and everything else ("other": a constant name, a `const fn` call,
 * an expression, a cast, `[0; 8]`), kept with a description for error messages.
 */
export type ValueNode =
  | { kind: "literal"; start: number; end: number; literal: NumberLiteral }
  | { kind: "array" | "tuple"; start: number; end: number; items: ValueNode[] }
  | { kind: "other"; start: number; end: number; description: string };

export interface ConstantItem {
  name: string;
  /** Offset of the name, for line numbers. */
  nameStart: number;
  /** Identifiers of the declared type, e.g. ["Score"] for `[Score; 8]`. */
  typeNames: string[];
  value: ValueNode;
}

const OPENERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/**
 * Finds every top-level `const` and `static` item (any visibility, `static mut` too).
 * Items inside `{}` blocks (fn bodies, `mod`, `impl`) are skipped: they are not the file's
 * constants and would otherwise look like duplicates.
 */
export function parseConstants(source: string, fileName: string): ConstantItem[] {
  const tokens = lexRust(source, fileName);
  const closer = matchBrackets(tokens, source, fileName);
  const items: ConstantItem[] = [];
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i];
    if (t === undefined) break;
    const item = t.kind === "ident" && (t.text === "const" || t.text === "static") ? readItem(i) : undefined;
    if (item) {
      items.push(item.item);
      i = item.next;
    } else {
      i = (closer.get(i) ?? i) + 1;
    }
  }
  return items;

  /** `const NAME: TYPE = VALUE;` starting at the keyword, or undefined for `const fn` and the like. */
  function readItem(keyword: number): { item: ConstantItem; next: number } | undefined {
    let j = keyword + 1;
    if (tokens[keyword]?.text === "static" && tokens[j]?.text === "mut") j++;
    const name = tokens[j];
    if (name?.kind !== "ident" || tokens[j + 1]?.text !== ":") return undefined;
    const equals = findAtDepth(j + 2, tokens.length, "=");
    const semicolon = equals === undefined ? undefined : findAtDepth(equals + 1, tokens.length, ";");
    if (equals === undefined || semicolon === undefined) {
      throw new InputError(`${fileName}:${lineAt(source, name.start)}`, `cannot read the definition of ${name.text} (expected \`= value;\`)`);
    }
    const typeNames = tokens.slice(j + 2, equals).filter((tok) => tok.kind === "ident").map((tok) => tok.text);
    return { item: { name: name.text, nameStart: name.start, typeNames, value: parseValue(equals + 1, semicolon) }, next: semicolon + 1 };
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
    if (first.kind === "number" && to === from + 1) return { kind: "literal", ...span, literal: readNumberLiteral(first.text) };
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
    return { kind: "other", start, end, description: describe(tokens.slice(from, to), source.slice(start, end)) };
  }
}

/** Words for what a non-literal value is, so the error says why it cannot be tuned. */
function describe(tokens: Token[], text: string): string {
  const snippet = text.replace(/\s+/g, " ");
  const shown = `\`${snippet.length > 60 ? `${snippet.slice(0, 57)}...` : snippet}\``;
  const isPath = tokens.every((t, i) => (i % 3 === 0 ? t.kind === "ident" : t.text === ":"));
  if (isPath && tokens.length % 3 === 1) return `derived from another constant (${shown})`;
  if (tokens.some((t) => t.text === "as")) return `a cast (${shown}); write a typed literal such as \`5i32\` instead`;
  const call = tokens.findIndex((t) => t.text === "(");
  if (call > 0 && tokens.slice(0, call).every((t) => t.kind === "ident" || t.text === ":")) return `built by a function call (${shown})`;
  if (tokens[0]?.text === "[" && tokens.some((t) => t.text === ";")) return `a repeat expression (${shown}); write the elements out`;
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
    throw new InputError(`${fileName}:${lineAt(source, tokens[unclosed]?.start ?? 0)}`, `unclosed \`${tokens[unclosed]?.text}\``);
  }
  return closer;
}
