import { describe, expect, it } from "vitest";
import { locateTargets, rewriteConstants, type ConstantTarget } from "../../src/rust-constants/rewriter.js";
import { parseRustItems } from "../../src/rust-constants/parser.js";

// Compact engines declare their tunables inside a macro invocation (engines/minnow does).
const SOURCE = `pub type Score = i32;
tunables! {
    /// Reverse futility margin.
    #[range(0, 1000)]
    pub const MARGIN: Score = 90;
    #[range(0.0, 3.0)]
    pub const BASE: f64 = 0.75;
    #[range(-500, 500)]
    pub const PAIR: (Score, Score) = (-10, 20);
}
pub const OUTSIDE: u8 = 3;
fn helper() { inner! { const HIDDEN: u8 = 1; } }
macro_rules! tunables { ($($t:tt)*) => { const NOT_AN_ITEM: u8 = 7; }; }
`;

const target = (constant: string, index: number[] = [], type: "int" | "float" = "int"): ConstantTarget => ({
  param: constant,
  constant,
  index,
  type,
});

describe("constants inside a macro invocation", () => {
  it("are read as the file's constants; a macro's definition and macros in fn bodies are not", () => {
    expect(parseRustItems(SOURCE, "m.rs").constants.map((c) => c.name)).toEqual(["MARGIN", "BASE", "PAIR", "OUTSIDE"]);
  });

  it("are rewritten in place, leaving the attributes that carry their ranges alone", () => {
    const targets = [target("MARGIN"), target("BASE", [], "float"), target("PAIR", [1])];
    expect(locateTargets(SOURCE, targets, "m.rs").map((t) => t.line)).toEqual([5, 7, 9]);
    const rewritten = rewriteConstants(
      SOURCE,
      [
        { target: targets[0]!, value: 120 },
        { target: targets[1]!, value: 1.25 },
        { target: targets[2]!, value: 35 },
      ],
      "m.rs",
    );
    expect(rewritten).toBe(
      SOURCE.replace("Score = 90;", "Score = 120;")
        .replace("f64 = 0.75;", "f64 = 1.25;")
        .replace("(-10, 20)", "(-10, 35)"),
    );
  });
});
