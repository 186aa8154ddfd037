import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compete, ROOT, spsa } from "../support/cli.js";
import { brokenLinks, headingAnchors, relativeLinks, tableRows, type TableRow } from "../support/markdown.js";

const README = join(ROOT, "README.md");
const DOCS = join(ROOT, "docs");
const pages = [
  README,
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(DOCS, name)),
];

describe("links in README.md and docs/", () => {
  it("every relative link and #anchor resolves", () => {
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.flatMap(brokenLinks)).toEqual([]);
  });

  const scratch = mkdtempSync(join(tmpdir(), "spsa-links-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("reports a missing file and a missing anchor, and leaves code and web links alone", () => {
    writeFileSync(
      join(scratch, "b.md"),
      "# Page B\n\n## How it works: `spsa master`\n\n## How it works: `spsa master`\n",
    );
    const a = join(scratch, "a.md");
    writeFileSync(
      a,
      [
        "See [b](b.md#how-it-works-spsa-master), [again](b.md#how-it-works-spsa-master-1) and [top](#a).",
        "# A",
        "A [gone](missing.md) page and a [wrong anchor](b.md#how-it-works).",
        "Not links: `[x](nowhere.md)`, [web](https://example.org/x.md).",
        "```",
        "[y](nowhere-either.md)",
        "```",
      ].join("\n"),
    );
    expect(brokenLinks(a)).toEqual([
      `${a}:3: missing.md (no such file)`,
      `${a}:3: b.md#how-it-works (no heading with this anchor)`,
    ]);
  });

  it("makes GitHub's anchors of headings", () => {
    expect([
      ...headingAnchors(
        "# Choosing the gains: `spsa simulate`\n## Mixed machines: node limits\n## θ and k, again\n## θ and k, again",
      ),
    ]).toEqual(["choosing-the-gains-spsa-simulate", "mixed-machines-node-limits", "θ-and-k-again", "θ-and-k-again-1"]);
    expect(relativeLinks("![pic](docs/dashboard.png) [x](mailto:a@b)")).toEqual([
      { line: 1, target: "docs/dashboard.png" },
    ]);
  });
});

/** A program's help: its subcommands and its options' flags. */
interface Help {
  commands: Set<string>;
  /** Subcommands whose arguments go to another program (`psql [args...]`): their flags are that program's, and so is their --help. */
  passThrough: Set<string>;
  flags: Set<string>;
}

function parseHelp(text: string): Help {
  const commands = new Set<string>();
  const passThrough = new Set<string>();
  const flags = new Set<string>();
  let section = "";
  for (const line of text.split("\n")) {
    if (/^\S.*:$/.test(line)) section = line;
    const entry = /^ {2}(\S+)/.exec(line)?.[1];
    if (entry === undefined) continue;
    if (section === "Commands:") commands.add(entry);
    if (section === "Commands:" && /^ {2}\S+ .*\[args\.\.\.\]/.test(line)) passThrough.add(entry);
    if (section === "Options:") for (const flag of line.match(/(?<=^ {2}|, )--?[\w-]+/g) ?? []) flags.add(flag);
  }
  return { commands, passThrough, flags };
}

const helps = new Map<string, Help>();

async function helpOf(program: "spsa" | "compete", args: string[]): Promise<Help> {
  const key = [program, ...args].join(" ");
  const known = helps.get(key);
  if (known) return known;
  const result = await (program === "spsa" ? spsa : compete)([...args, "--help"]);
  expect(result.exitCode, result.all).toBe(0);
  const help = parseHelp(result.stdout);
  helps.set(key, help);
  return help;
}

/** Each row's command must be one of spsa or compete, and every flag in the row one its --help lists; returns the problems and the commands named. */
async function checkRows(rows: TableRow[]): Promise<{ problems: string[]; named: Set<string> }> {
  const problems: string[] = [];
  const named = new Set<string>();
  for (const { command, description } of rows) {
    const words = command.split(/\s+/);
    const program = words[1];
    if (words[0] !== "npx" || (program !== "spsa" && program !== "compete")) {
      problems.push(`${command}: not an npx spsa or npx compete command`);
      continue;
    }
    // `compete --spsa` is the worker, whose options have a help of their own.
    const path = program === "compete" && words.includes("--spsa") ? ["--spsa"] : [];
    const top = await helpOf(program, []);
    let help = path.length > 0 ? await helpOf(program, path) : top;
    let passesThrough = false;
    for (const word of words.slice(2)) {
      if (!help.commands.has(word)) break;
      path.push(word);
      passesThrough = help.passThrough.has(word);
      if (passesThrough) break;
      help = await helpOf(program, path);
    }
    named.add([program, ...path].join(" "));
    if (passesThrough) continue;
    // A code span naming another command (`compete --spsa` workers) has that command's flags.
    const own = description.replace(/`(npx |spsa |compete )[^`]*`/g, "");
    const flags = [...`${command} ${own}`.matchAll(/(?<=^|[\s`(])--?[a-z][\w-]*/g)].map((match) => match[0]);
    for (const flag of flags) {
      if (!help.flags.has(flag) && !top.flags.has(flag))
        problems.push(`${command}: ${flag} is not in \`${[program, ...path].join(" ")} --help\``);
    }
  }
  return { problems, named };
}

describe("command tables", () => {
  it("README.md: every command and subcommand of spsa and compete has a row, with options their --help lists", async () => {
    const rows = tableRows(readFileSync(README, "utf8"), "Commands");
    expect(rows.length).toBeGreaterThan(10);
    const { problems, named } = await checkRows(rows);
    const expected = ["compete", "compete --spsa"];
    for (const name of (await helpOf("spsa", [])).commands) {
      if (name === "help") continue;
      const subcommands = [...(await helpOf("spsa", [name])).commands].filter((c) => c !== "help");
      if (subcommands.length === 0) expected.push(`spsa ${name}`);
      for (const subcommand of subcommands) expected.push(`spsa ${name} ${subcommand}`);
    }
    for (const name of expected) if (!named.has(name)) problems.push(`${name}: in --help, but no row of the table`);
    expect(problems).toEqual([]);
  });

  it("docs/commands.md: every row is a command whose --help lists the options the row names", async () => {
    const rows = tableRows(readFileSync(join(DOCS, "commands.md"), "utf8"), "Command reference");
    expect(rows.length).toBeGreaterThan(10);
    expect((await checkRows(rows)).problems).toEqual([]);
  });
});
