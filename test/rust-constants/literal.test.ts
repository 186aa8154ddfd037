import { describe, expect, it } from "vitest";
import { formatNumberLiteral, readNumberLiteral } from "../../src/rust-constants/literal.js";

describe("readNumberLiteral", () => {
  it.each([
    ["12", "int", "", undefined],
    ["12i32", "int", "i32", "i32"],
    ["3_i16", "int", "_i16", "i16"],
    ["1_000", "int", "", undefined],
    ["0xff", "int", "", undefined],
    ["0x1f32", "int", "", undefined], // hex digits, not an f32 suffix
    ["0xffu8", "int", "u8", "u8"],
    ["0b1010_usize", "int", "_usize", "usize"],
    ["0.75", "float", "", undefined],
    ["1.", "float", "", undefined],
    ["1e3", "float", "", undefined],
    ["2.5E-3", "float", "", undefined],
    ["2.5f64", "float", "f64", "f64"],
    ["3f32", "float", "f32", "f32"],
  ])("%s is %s with suffix %j", (text, type, suffix, primitive) => {
    expect(readNumberLiteral(text)).toEqual({ type, suffix, primitive });
  });
});

describe("formatNumberLiteral", () => {
  const int = readNumberLiteral("1");
  const float = readNumberLiteral("1.0");

  it.each([
    [int, 5, "i32", "5"],
    [int, -5, "i64", "-5"],
    [int, -0, "u8", "0"],
    [readNumberLiteral("7i8"), -128, "i8", "-128i8"],
    [int, 2 ** 53 - 1, "u64", "9007199254740991"],
    [float, 2, "f64", "2.0"],
    [float, -0.5, "f64", "-0.5"],
    [float, 1e-7, "f64", "1e-7"],
    [float, 1e21, "f64", "1e+21"],
    [readNumberLiteral("1f32"), 3, "f32", "3.0f32"],
    [float, 3.4028234663852886e38, "f32", "3.4028234663852886e+38"],
  ] as const)("writes %j = %s as %s", (literal, value, primitive, text) => {
    expect(formatNumberLiteral(value, literal, primitive)).toBe(text);
  });

  it("refuses what the literal cannot hold", () => {
    expect(formatNumberLiteral(0.5, int, "i32")).toEqual({
      error: "0.5 is not an integer, and the literal is an integer",
    });
    expect(formatNumberLiteral(128, int, "i8")).toEqual({ error: "128 does not fit in i8" });
    expect(formatNumberLiteral(-1, int, "usize")).toEqual({ error: "-1 does not fit in usize" });
    expect(formatNumberLiteral(1e39, float, "f32")).toEqual({ error: "1e+39 does not fit in f32" });
    expect(formatNumberLiteral(Infinity, float, "f64")).toEqual({ error: "cannot write Infinity" });
  });

  it.each([2 ** 53, -(2 ** 53), 2 ** 60])(
    "refuses the integer %s as beyond a float64's exact integers, not as a non-integer",
    (value) => {
      expect(formatNumberLiteral(value, int, "i64")).toEqual({
        error: `${value} is outside the range a float64 holds exactly (±9007199254740991), so it cannot be written as an exact integer`,
      });
    },
  );
});
