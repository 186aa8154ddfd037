import { InputError } from "../core/errors.js";

/**
 * A lexer for the subset of Rust a constants file needs: identifiers, number literals,
 * strings and chars (so their contents are never mistaken for code), and single-character
 * punctuation. Comments and whitespace produce no tokens; offsets point into the source,
 * so every byte outside a rewritten literal is kept as it was.
 */
export type TokenKind = "ident" | "number" | "string" | "char" | "lifetime" | "punct";

export interface Token {
  kind: TokenKind;
  text: string;
  /** Offset of the first character. */
  start: number;
  /** Offset just past the last character. */
  end: number;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT_CHAR = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;

export function lexRust(source: string, fileName: string): Token[] {
  const tokens: Token[] = [];
  const fail = (at: number, detail: string): never => {
    throw new InputError(`${fileName}:${lineAt(source, at)}`, detail);
  };
  const at = (i: number): string => source[i] ?? "";
  let i = 0;
  while (i < source.length) {
    const ch = at(i);
    const start = i;
    const raw = ch === "r" || ch === "b" ? rawStringOpening(source, i) : "";
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "/" && at(i + 1) === "/") {
      while (i < source.length && at(i) !== "\n") i++;
    } else if (ch === "/" && at(i + 1) === "*") {
      i = skipBlockComment(source, i) ?? fail(start, "unterminated block comment");
    } else if (raw !== "") {
      const closing = `"${"#".repeat(raw.length - raw.indexOf("r") - 2)}`;
      const close = source.indexOf(closing, i + raw.length);
      if (close < 0) fail(start, "unterminated raw string");
      i = close + closing.length;
      tokens.push(token("string", source, start, i));
    } else if (ch === '"' || (ch === "b" && at(i + 1) === '"')) {
      i = skipQuoted(source, ch === "b" ? i + 2 : i + 1, '"') ?? fail(start, "unterminated string");
      tokens.push(token("string", source, start, i));
    } else if (ch === "'" || (ch === "b" && at(i + 1) === "'")) {
      const open = ch === "b" ? i + 1 : i;
      // 'a' or '\n' is a char; 'a without a closing quote is a lifetime.
      const isChar = at(open + 1) === "\\" || at(open + 2) === "'";
      if (isChar) {
        i = skipQuoted(source, open + 1, "'") ?? fail(start, "unterminated character literal");
        tokens.push(token("char", source, start, i));
      } else {
        i = open + 1;
        while (IDENT_CHAR.test(at(i))) i++;
        tokens.push(token("lifetime", source, start, i));
      }
    } else if (DIGIT.test(ch)) {
      i = numberEnd(source, i);
      tokens.push(token("number", source, start, i));
    } else if (IDENT_START.test(ch)) {
      while (IDENT_CHAR.test(at(i))) i++;
      tokens.push(token("ident", source, start, i));
    } else {
      i++;
      tokens.push(token("punct", source, start, i));
    }
  }
  return tokens;
}

/**
 * The offsets where the lines of the last source asked about start: a constants file of thousands
 * of literals asks for each one's line.
 */
let lines: { source: string; starts: number[] } | undefined;

/** 1-based line of an offset. */
export function lineAt(source: string, offset: number): number {
  if (lines?.source !== source) {
    const starts = [0];
    for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) starts.push(i + 1);
    lines = { source, starts };
  }
  // The last line starting at or before the offset (a newline at the offset itself is still on its line).
  const { starts } = lines;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] ?? 0) <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

function token(kind: TokenKind, source: string, start: number, end: number): Token {
  return { kind, text: source.slice(start, end), start, end };
}

/** `r"`, `r#"`, `br##"` …: the text of a raw string opening at i, or "" when there is none. */
function rawStringOpening(source: string, i: number): string {
  const match = /^b?r#*"/.exec(source.slice(i, i + 64));
  // `r` must start a token: in `bar"` the r belongs to an identifier (not valid Rust anyway).
  return match && !IDENT_CHAR.test(source[i - 1] ?? "") ? match[0] : "";
}

/** Block comments nest in Rust. Returns the offset past the comment, or undefined. */
function skipBlockComment(source: string, i: number): number | undefined {
  let depth = 0;
  while (i < source.length) {
    if (source.startsWith("/*", i)) {
      depth++;
      i += 2;
    } else if (source.startsWith("*/", i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return undefined;
}

/** From just after the opening quote to just past the closing one, honouring backslashes. */
function skipQuoted(source: string, i: number, quote: string): number | undefined {
  while (i < source.length) {
    const ch = source[i];
    if (ch === "\\") i += 2;
    else if (ch === quote) return i + 1;
    else i++;
  }
  return undefined;
}

/**
 * The end of a number literal starting at i: digits and underscores, an optional fraction
 * (not in `0..8` or `1.max(2)`), an optional exponent, and a suffix such as `i32` or `f64`.
 */
function numberEnd(source: string, i: number): number {
  const at = (j: number): string => source[j] ?? "";
  if (at(i) === "0" && /[xob]/.test(at(i + 1))) {
    i += 2;
    while (IDENT_CHAR.test(at(i))) i++;
    return i;
  }
  while (/[0-9_]/.test(at(i))) i++;
  if (at(i) === "." && at(i + 1) !== "." && !IDENT_START.test(at(i + 1))) {
    i++;
    while (/[0-9_]/.test(at(i))) i++;
  }
  if (/[eE]/.test(at(i)) && /^[+-]?_*[0-9]/.test(source.slice(i + 1, i + 40))) {
    i++;
    if (/[+-]/.test(at(i))) i++;
    while (/[0-9_]/.test(at(i))) i++;
  }
  while (IDENT_CHAR.test(at(i))) i++;
  return i;
}
