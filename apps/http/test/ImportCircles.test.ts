/**
 * The import drawing has no circle: within each package, adapter and app, no module imports one that (through any
 * chain of relative imports, types included) imports it back. A circle means two modules that can only be read,
 * tested and loaded together; the value types two modules share go in a module of their own, beside the port that
 * keeps them (as `IdempotencyRequest` and `StoreConfig` are).
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const sourcesOf = (folder: string): ReadonlyArray<string> =>
  Fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(folder, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sourcesOf(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

/** Each workspace's `src` folder. */
const sourceFolders = ["packages", "adapters", "apps"].flatMap((top) =>
  Fs.readdirSync(Path.join(ROOT, top))
    .map((name) => Path.join(ROOT, top, name, "src"))
    .filter((folder) => Fs.existsSync(folder))
)

/** The modules a file imports or re-exports by a relative path (`import type` included). */
const relativeImportsOf = (file: string): ReadonlyArray<string> =>
  [...Fs.readFileSync(file, "utf8").matchAll(/(?:^|\n)\s*(?:import|export)\s[^"';]*?from\s+["'](\.[^"']+)["']/g)].map(
    (match) => Path.resolve(Path.dirname(file), match[1]!)
  )

/** The circles of a graph: its strongly connected components of more than one module (Tarjan's algorithm). */
const circlesOf = (graph: ReadonlyMap<string, ReadonlyArray<string>>): ReadonlyArray<ReadonlyArray<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const circles: Array<ReadonlyArray<string>> = []
  const visit = (module: string) => {
    index.set(module, index.size)
    low.set(module, index.get(module)!)
    stack.push(module)
    onStack.add(module)
    for (const next of graph.get(module) ?? []) {
      if (!graph.has(next)) continue
      if (!index.has(next)) {
        visit(next)
        low.set(module, Math.min(low.get(module)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(module, Math.min(low.get(module)!, index.get(next)!))
      }
    }
    if (low.get(module) === index.get(module)) {
      const members: Array<string> = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        members.push(member)
      } while (member !== module)
      if (members.length > 1) circles.push(members.sort())
    }
  }
  for (const module of graph.keys()) if (!index.has(module)) visit(module)
  return circles
}

describe("import circles", () => {
  it("finds the workspaces' sources", () => {
    expect(sourceFolders.length).toBeGreaterThan(30)
    expect(sourceFolders).toContain(Path.join(ROOT, "packages", "idempotency", "src"))
  })

  it("finds a circle when there is one", () => {
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a", "d"]],
      ["d", []]
    ])
    expect(circlesOf(graph)).toEqual([["a", "b", "c"]])
  })

  it.each(sourceFolders.map((folder) => [Path.relative(ROOT, Path.dirname(folder)), folder]))(
    "%s has no import circle",
    (_, folder) => {
      const graph = new Map(sourcesOf(folder).map((file) => [file, relativeImportsOf(file)]))
      expect(graph.size).toBeGreaterThan(0)
      expect(circlesOf(graph).map((circle) => circle.map((file) => Path.relative(ROOT, file)))).toEqual([])
    }
  )
})
