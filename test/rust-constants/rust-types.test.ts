import { describe, expect, it } from "vitest";
import {
  describeRange,
  resolvePrimitive,
  typeRange,
  type AliasScope,
  type TypeAlias,
  type TypeNode,
} from "../../src/rust-constants/rust-types.js";

const name = (n: string): TypeNode => ({ kind: "name", name: n });
const alias = (n: string, type: TypeNode, where: string, topLevel = true): TypeAlias => ({
  name: n,
  type,
  where,
  topLevel,
});

describe("typeRange", () => {
  it.each([
    ["i8", -128, 127],
    ["u8", 0, 255],
    ["i16", -32768, 32767],
    ["u16", 0, 65535],
    ["i32", -2147483648, 2147483647],
    ["u32", 0, 4294967295],
    ["i64", -(2 ** 63), 2 ** 63],
    ["usize", 0, 2 ** 64],
    ["u128", 0, 2 ** 128],
    ["f32", -3.4028234663852886e38, 3.4028234663852886e38],
    ["f64", -Number.MAX_VALUE, Number.MAX_VALUE],
  ] as const)("%s holds %s to %s", (type, low, high) => {
    expect(typeRange(type)).toEqual([low, high]);
  });

  it.each([
    ["u8", "0 to 255"],
    ["i32", "-2147483648 to 2147483647"],
    ["i64", "-2^63 to 2^63 - 1"],
    ["usize", "0 to 2^64 - 1"],
    ["f32", "±3.4028234663852886e+38"],
  ] as const)("describes %s as %s", (type, text) => {
    expect(describeRange(type)).toBe(text);
  });
});

describe("resolvePrimitive", () => {
  const score = alias("Score", name("i32"), "types.rs:1");
  const pair = alias("ScorePair", { kind: "tuple", items: [name("Score"), name("i16")] }, "types.rs:2");
  const scope: AliasScope = { local: [], crate: [score, pair] };

  it.each([
    ["a primitive", name("u8"), [], "u8"],
    ["an alias", name("Score"), [], "i32"],
    ["a tuple of aliases", { kind: "tuple", items: [name("Score"), name("f64")] }, [1], "f64"],
    ["an array of an alias", { kind: "array", element: name("Score") }, [5], "i32"],
    ["an alias of a tuple of aliases", name("ScorePair"), [0], "i32"],
    ["each element of that tuple", name("ScorePair"), [1], "i16"],
    ["an array of tuple aliases", { kind: "array", element: name("ScorePair") }, [3, 0], "i32"],
  ] as const)("follows %s", (_label, type, index, primitive) => {
    expect(resolvePrimitive(type as TypeNode, index, scope)).toEqual({ primitive });
  });

  it("prefers the constants file's own alias to the crate's", () => {
    const local = alias("Score", name("i16"), "engine_constants.rs:3");
    expect(resolvePrimitive(name("Score"), [], { local: [local], crate: [score] })).toEqual({ primitive: "i16" });
  });

  it("accepts one alias defined alike in two modules and refuses two that differ", () => {
    const again = alias("Score", name("i32"), "eval.rs:9", false);
    expect(resolvePrimitive(name("Score"), [], { local: [], crate: [score, again] })).toEqual({ primitive: "i32" });
    const other = alias("Score", name("i16"), "nnue.rs:4", false);
    expect(resolvePrimitive(name("Score"), [], { local: [], crate: [score, other] })).toEqual({
      problem: "type `Score` is defined differently in the crate (i32 at types.rs:1, i16 at nnue.rs:4)",
    });
  });

  it.each([
    [
      "a missing alias",
      name("Eval"),
      [],
      "its declared type `Eval` is not a number type and no `type Eval = …;` was found in the crate",
    ],
    [
      "an unreadable type",
      { kind: "unknown", text: "Option<i32>" },
      [],
      "its declared type `Option<i32>` is not a number type this tool can read",
    ],
    [
      "an array without an index",
      { kind: "array", element: name("u8") },
      [],
      "its declared type is an array, not a number",
    ],
    [
      "a tuple too short",
      { kind: "tuple", items: [name("u8")] },
      [1],
      "its declared type is a tuple of 1 elements, which has no element [1]",
    ],
    ["an index into a number", name("Score"), [0], "its declared type i32 has no element [0]"],
  ] as const)("reports %s", (_label, type, index, problem) => {
    expect(resolvePrimitive(type as TypeNode, index, scope)).toEqual({ problem });
  });

  it("reports a cycle of aliases instead of looping", () => {
    const a = alias("A", name("B"), "x.rs:1");
    const b = alias("B", name("A"), "x.rs:2");
    expect(resolvePrimitive(name("A"), [], { local: [], crate: [a, b] })).toEqual({
      problem: "type alias A -> B -> A is a cycle",
    });
  });
});
