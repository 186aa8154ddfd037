/**
 * Typed errors. Each kind maps to one exit code in `src/cli/run.ts`, so every command
 * fails the same way: a one-line message on stderr and a documented status.
 */
export class SpsaError extends Error {
  readonly exitCode: number = 1;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input from the user: a config or params file, a book, a flag. Exit status 2. */
export class InputError extends SpsaError {
  override readonly exitCode = 2;
  /** Where the problem is, e.g. `config.toml: [spsa].alpha (line 12)`. */
  constructor(
    readonly where: string,
    readonly detail: string,
  ) {
    super(`${where}: ${detail}`);
  }
}

/**
 * Every problem found in the user's input, each an InputError naming its file and line or key:
 * one run reports them all (src/cli/run.ts prints one `error: …` line each). Exit status 2.
 */
export class InputProblems extends InputError {
  readonly problems: readonly InputError[];
  constructor(problems: readonly InputError[]) {
    // Nested lists are flattened: a problem is always one line.
    const flat = problems.flatMap((p) => (p instanceof InputProblems ? p.problems : [p]));
    const [first] = flat;
    super(first?.where ?? "input", first?.detail ?? "no problem");
    this.problems = flat;
    this.message = flat.map((p) => p.message).join("\n");
  }
}

/** Nothing when `problems` is empty; the only problem as it is; else all of them as one InputProblems. */
export function throwProblems(problems: readonly InputError[]): void {
  const [first] = problems;
  if (problems.length === 1 && first !== undefined && !(first instanceof InputProblems)) throw first;
  if (problems.length > 0) throw new InputProblems(problems);
}

/** The database could not be reached, started or migrated. Exit status 3. */
export class DatabaseError extends SpsaError {
  override readonly exitCode = 3;
}

/** An engine build (cargo) failed. Exit status 4. */
export class BuildError extends SpsaError {
  override readonly exitCode = 4;
}

/** An engine misbehaved in a way that stops the command (e.g. it never answered `uci`). Exit status 5. */
export class EngineError extends SpsaError {
  override readonly exitCode = 5;
}

/**
 * Another master has the run's lease (one master per run): refused at the start, or this master
 * lost the run to one that took it over after it stalled. Exit status 6.
 */
export class RunLeasedError extends SpsaError {
  override readonly exitCode = 6;
}
