import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

export interface MarkdownLink {
  /** 1-based line of the link in its file. */
  line: number;
  /** The link's target as written: `docs/x.md#anchor`, `#anchor`, `dashboard.png`. */
  target: string;
}

/** The lines of a Markdown text outside fenced code blocks, with inline code removed. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fenced = false;
  markdown.split("\n").forEach((text, index) => {
    if (/^\s*```/.test(text)) {
      fenced = !fenced;
      return;
    }
    if (!fenced) lines.push({ line: index + 1, text: text.replace(/`[^`]*`/g, "") });
  });
  return lines;
}

/** Links and images that point into the repository (no scheme such as https: or mailto:). */
export function relativeLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, text } of proseLines(markdown)) {
    for (const match of text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? "";
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ line, target });
    }
  }
  return links;
}

/** GitHub's anchors of a Markdown text's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown.replace(/`([^`]*)`/g, "$1"))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading?.[1]) continue;
    const slug = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Every link of a Markdown file whose file does not exist or whose #anchor is no heading of its page, as `file:line: target (why)`. */
export function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const { line, target } of relativeLinks(readFileSync(file, "utf8"))) {
    const [path = "", anchor] = target.split("#", 2);
    const linked = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
    const where = `${file}:${line}: ${target}`;
    if (!existsSync(linked)) {
      broken.push(`${where} (no such file)`);
    } else if (anchor !== undefined && linked.endsWith(".md") && statSync(linked).isFile()) {
      if (!headingAnchors(readFileSync(linked, "utf8")).has(anchor))
        broken.push(`${where} (no heading with this anchor)`);
    }
  }
  return broken;
}

export interface TableRow {
  /** The first cell's inline code. */
  command: string;
  /** The rest of the row. */
  description: string;
}

/** The rows whose first cell is inline code, of the tables between a Markdown text's heading `heading` and its next heading. */
export function tableRows(markdown: string, heading: string): TableRow[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, "").trim() === heading);
  if (start < 0) return [];
  const rows: TableRow[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6} /.test(line)) break;
    const row = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (row?.[1] !== undefined && row[2] !== undefined) rows.push({ command: row[1], description: row[2] });
  }
  return rows;
}
