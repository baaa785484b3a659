/**
 * The packages' and adapters' READMEs, and the integrator pages (docs/webhooks.md, docs/signing.md), hold TypeScript
 * samples a reader copies into a host: each must type-check against the workspace's packages and dependencies. A
 * sample that opens with imports is a module of its own; one that does not continues the sample before it (it uses
 * what that one imported or defined). Signatures abridged for reading go in ```text blocks. The modules are written
 * into a temporary project inside the workspace, so `@tawsil/*` resolve to the packages' sources through the
 * `@tawsil/source` condition; one `tsc` run checks them all.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

/** Every README of a package or an adapter, by its folder (`packages/domain`). */
const readmes = ["packages", "adapters"].flatMap((parent) =>
  readdirSync(Path.join(ROOT, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${parent}/${entry.name}`)
    .filter((folder) => {
      try {
        return readFileSync(Path.join(ROOT, folder, "README.md"), "utf8").length > 0
      } catch {
        return false
      }
    })
)

/** Every page whose samples are checked: the READMEs, and the pages integrators copy receivers and callers from. */
const documents = [...readmes.map((folder) => `${folder}/README.md`), "docs/webhooks.md", "docs/signing.md"]

/** The ```ts and ```typescript blocks of a page, in order. */
const samplesOf = (document: string): ReadonlyArray<string> =>
  [...readFileSync(Path.join(ROOT, document), "utf8").matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```$/gm)].map(
    ([, body]) => body!
  )

/** Whether a sample opens with an import (comments and blank lines aside): then it starts a module. */
const opensWithImport = (sample: string) =>
  /^import\b/.test(
    sample
      .split("\n")
      .map((line) => line.trim())
      .find((line) => line !== "" && !line.startsWith("//")) ?? ""
  )

/** A page's samples as modules: each sample opening with imports starts one, the others continue it. */
const modulesOf = (document: string): ReadonlyArray<string> => {
  const modules: Array<Array<string>> = []
  samplesOf(document).forEach((sample, index) => {
    const labelled = `// ${document}, sample ${index + 1}\n${sample}`
    const current = modules.at(-1)
    if (current === undefined || opensWithImport(sample)) modules.push([labelled])
    else current.push(labelled)
  })
  return modules.map((parts) => parts.join("\n"))
}

describe("README samples", () => {
  it("are found in the packages' READMEs", () => {
    assert.isAbove(
      readmes.reduce((count, folder) => count + samplesOf(`${folder}/README.md`).length, 0),
      20
    )
    for (const page of ["docs/webhooks.md", "docs/signing.md"]) assert.isNotEmpty(samplesOf(page), page)
  })

  it("type-check against the workspace's packages", () => {
    // Inside the workspace, so its node_modules (and the packages' sources) resolve as a host's would.
    const dir = mkdtempSync(Path.join(ROOT, ".readme-samples-"))
    try {
      const files: Array<string> = []
      for (const document of documents) {
        modulesOf(document).forEach((module, index) => {
          const file = `${document.replace(/\.md$/, "").replaceAll("/", "-")}-${index + 1}.ts`
          writeFileSync(Path.join(dir, file), module)
          files.push(file)
        })
      }
      writeFileSync(Path.join(dir, "package.json"), JSON.stringify({ type: "module", private: true }))
      writeFileSync(
        Path.join(dir, "tsconfig.json"),
        JSON.stringify({
          extends: "../tsconfig.base.json",
          compilerOptions: {
            noEmit: true,
            composite: false,
            declaration: false,
            declarationMap: false,
            sourceMap: false,
            rewriteRelativeImportExtensions: false,
            // A sample shows a value without always using it.
            noUnusedLocals: false,
            noUnusedParameters: false
          },
          files
        })
      )
      const tsc = spawnSync(process.execPath, [Path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "."], {
        cwd: dir,
        encoding: "utf8"
      })
      assert.strictEqual(tsc.status, 0, `README samples that do not type-check:\n${tsc.stdout}${tsc.stderr}`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
