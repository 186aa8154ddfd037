import { InputError } from "./errors.js";
import { didYouMean } from "./suggest.js";
import { describeKey, type TomlDocument, type TomlTable } from "./toml-file.js";

interface NumberRule {
  default?: number;
  integer?: boolean;
  /** Inclusive lower bound. */
  min?: number;
  /** Exclusive lower bound (e.g. 0 for "must be positive"). */
  above?: number;
  max?: number;
}

/**
 * Typed, validated access to one TOML table. Every error names the file, table, key and
 * line; unknown keys are rejected with the nearest known key as a suggestion.
 */
export class TableReader {
  private readonly table: TomlTable;

  constructor(
    private readonly doc: TomlDocument,
    /** The table's name, or undefined for the document's top level. */
    readonly name: string | undefined,
    value: unknown,
    knownKeys: readonly string[],
    /** Where unknown keys go, one problem each, when the caller collects problems; else the first is thrown. */
    problems?: InputError[],
  ) {
    if (value === undefined) value = {};
    if (!isTable(value)) throw new InputError(describeKey(doc, undefined, name), "must be a table");
    this.table = value;
    for (const key of Object.keys(value)) {
      if (knownKeys.includes(key)) continue;
      const problem = new InputError(this.where(key), `unknown key${didYouMean(key, knownKeys)}`);
      if (problems === undefined) throw problem;
      problems.push(problem);
    }
  }

  where(key?: string): string {
    return describeKey(this.doc, this.name, key);
  }

  fail(key: string, detail: string): never {
    throw new InputError(this.where(key), detail);
  }

  has(key: string): boolean {
    return this.table[key] !== undefined;
  }

  number(key: string, rule: NumberRule = {}): number {
    const value = this.table[key] ?? rule.default;
    if (value === undefined) this.fail(key, "is required");
    if (typeof value !== "number") this.fail(key, `must be a number, got ${show(value)}`);
    // TOML has inf and nan; no setting or parameter means them (a bound of inf made simulate print NaN).
    if (!Number.isFinite(value))
      this.fail(key, `must be a finite number, got ${Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf"}`);
    if (rule.integer && !Number.isInteger(value)) this.fail(key, `must be an integer, got ${value}`);
    if (rule.min !== undefined && value < rule.min) this.fail(key, `must be >= ${rule.min}, got ${value}`);
    if (rule.above !== undefined && value <= rule.above) this.fail(key, `must be > ${rule.above}, got ${value}`);
    if (rule.max !== undefined && value > rule.max) this.fail(key, `must be <= ${rule.max}, got ${value}`);
    return value;
  }

  optionalNumber(key: string, rule: Omit<NumberRule, "default"> = {}): number | undefined {
    return this.has(key) ? this.number(key, rule) : undefined;
  }

  /** A number by `rule`, or the string `word` (e.g. "auto"), which is also the default. */
  numberOr<T extends string>(key: string, word: T, rule: Omit<NumberRule, "default"> = {}): number | T {
    const value = this.table[key];
    if (value === undefined || value === word) return word;
    if (typeof value === "string") this.fail(key, `must be "${word}" or a number, got "${value}"`);
    return this.number(key, rule);
  }

  string(key: string, fallback?: string): string {
    const value = this.table[key] ?? fallback;
    if (value === undefined) this.fail(key, "is required");
    if (typeof value !== "string") this.fail(key, `must be a string, got ${show(value)}`);
    return value;
  }

  optionalString(key: string): string | undefined {
    return this.has(key) ? this.string(key) : undefined;
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.table[key] ?? fallback;
    if (typeof value !== "boolean") this.fail(key, `must be true or false, got ${show(value)}`);
    return value;
  }

  oneOf<T extends string>(key: string, choices: readonly T[], fallback?: T): T {
    const value = this.string(key, fallback);
    if (!(choices as readonly string[]).includes(value)) {
      this.fail(
        key,
        `must be one of ${choices.map((c) => `"${c}"`).join(", ")}, got "${value}"${didYouMean(value, choices)}`,
      );
    }
    return value as T;
  }

  optionalOneOf<T extends string>(key: string, choices: readonly T[]): T | undefined {
    return this.has(key) ? this.oneOf(key, choices) : undefined;
  }

  stringArray(key: string, fallback: string[]): string[] {
    const value = this.table[key] ?? fallback;
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
      this.fail(key, `must be an array of strings, got ${show(value)}`);
    }
    return value as string[];
  }

  /** A non-negative integer or an array of them (an element path), normalised to an array. */
  indexPath(key: string): number[] {
    const value = this.table[key];
    if (value === undefined) return [];
    const path = Array.isArray(value) ? value : [value];
    if (path.some((item) => typeof item !== "number" || !Number.isInteger(item) || item < 0)) {
      this.fail(key, `must be a non-negative integer or an array of them, got ${show(value)}`);
    }
    return path as number[];
  }
}

export function isTable(value: unknown): value is TomlTable {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function show(value: unknown): string {
  if (typeof value === "string") return `"${value}"`;
  if (isTable(value)) return "a table";
  return JSON.stringify(value) ?? String(value);
}
