import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** One relative import of a source file, `import type` and `import()` included: each is a dependency. */
export interface ImportEdge {
  /** Importing file, relative to the source root ("worker/worker.ts"). */
  from: string;
  /** Imported file, relative to the source root. */
  to: string;
  /** 1-based line of the import's specifier in `from`. */
  line: number;
}

/** Every `.ts` file under `root`, relative to it, sorted. */
export function sourceFiles(root: string): string[] {
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter(
    (file) => file.endsWith(".ts") && !file.endsWith(".d.ts"),
  );
  return files.map((file) => file.split("\\").join("/")).sort();
}

/** The relative imports of every source file under `root` (package imports are not part of the layout). */
export function importEdges(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const from of sourceFiles(root)) {
    const text = readFileSync(join(root, from), "utf8");
    const source = ts.createSourceFile(from, text, ts.ScriptTarget.Latest);
    for (const imported of ts.preProcessFile(text, true, true).importedFiles) {
      if (!imported.fileName.startsWith(".")) continue;
      const target = resolve(dirname(join(root, from)), imported.fileName).replace(/\.js$/, ".ts");
      const line = source.getLineAndCharacterOfPosition(imported.pos).line + 1;
      edges.push({ from, to: relative(root, target).split("\\").join("/"), line });
    }
  }
  return edges;
}

/** The folder a file lives in, relative to the source root ("" for a file at the root). */
export function folderOf(file: string): string {
  const slash = file.lastIndexOf("/");
  return slash < 0 ? "" : file.slice(0, slash);
}

/** The strongly connected components of more than one node (Tarjan): every import circle. */
export function circles(nodes: readonly string[], edges: ReadonlyArray<{ from: string; to: string }>): string[][] {
  const next = new Map<string, Set<string>>(nodes.map((node) => [node, new Set()]));
  for (const edge of edges) if (edge.from !== edge.to) next.get(edge.from)?.add(edge.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return found;
}
