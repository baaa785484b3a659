import { spawnSync } from "node:child_process"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ShippingApi } from "@tawsil/api/shipping"
import { ClientRateLimit } from "@tawsil/api/shipping/Errors"
import { Discovery } from "@tawsil/shipping"
import { HttpApi } from "effect/http-api"
import { variables } from "../src/AppConfig.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

describe("the documentation", () => {
  it("lists every configuration variable in the README's table, with its default", () => {
    const readme = readFileSync(Path.join(ROOT, "README.md"), "utf8")
    for (const [name, { default: fallback }] of Object.entries(variables)) {
      const row = readme.split("\n").find((line) => new RegExp(`^\\|\\s*\`${name}\`\\s*\\|`).test(line))
      assert.isDefined(row, `README.md has no row for ${name}`)
      const cells = row!.split("|").map((cell) => cell.trim())
      assert.strictEqual(cells[2], fallback === "" ? "unset" : `\`${fallback}\``, `README.md's default for ${name}`)
    }
  })
})

describe("docs/operations.md", () => {
  it("names every shipping call the client window counts, and says which it does not", () => {
    const counted: Array<string> = []
    const free: Array<string> = []
    HttpApi.reflect(ShippingApi, {
      onGroup: () => {},
      onEndpoint: ({ endpoint, middleware }) =>
        ([...middleware].some((tag) => tag.key === ClientRateLimit.key) ? counted : free).push(
          endpoint.path.replace(/^\/v1/, "")
        )
    })
    const limits = readFileSync(Path.join(ROOT, "docs/operations.md"), "utf8").split("**Limits**")[1]!.split("\n\n")[0]!
    const named = [...limits.matchAll(/`(?:POST |GET )?(\/v1)?(\/[a-z/-]+)`/g)].map((match) => match[2]!)
    const notCounted = limits.slice(limits.indexOf("not counted") - 200)
    assert.isAbove(counted.length, 8)
    for (const path of counted) assert.include(named, path, `the Limits paragraph names ${path}`)
    for (const path of free.filter((path) => path.startsWith("/"))) {
      if (path.startsWith("/health")) continue
      assert.include(notCounted, path, `the Limits paragraph says ${path} is not counted`)
    }
  })
})

describe("the courier adapters in this repository", () => {
  const folders = readdirSync(Path.join(ROOT, "adapters"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)

  it("are each discovered by the app, documented and covered by the conformance kit", () => {
    const discovered = Discovery.installedPackages(Path.join(ROOT, "apps/http/src/main.ts"))
    assert.isNotEmpty(folders)
    for (const folder of folders) {
      const manifest = JSON.parse(readFileSync(Path.join(ROOT, "adapters", folder, "package.json"), "utf8")) as {
        name: string
        tawsil?: { courierAdapter?: boolean }
      }
      assert.isTrue(manifest.tawsil?.courierAdapter, `${folder} declares itself a courier adapter`)
      assert.include(discovered, manifest.name, `${folder} is discovered`)
      assert.isTrue(existsSync(Path.join(ROOT, "adapters", folder, "README.md")), `${folder} has a README`)
      assert.isTrue(
        existsSync(Path.join(ROOT, "adapters", folder, "test", "Conformance.test.ts")),
        `${folder} runs the conformance kit`
      )
    }
  })
})

/**
 * docs/adapters.md's TypeScript samples, checked against the SDK: the guide's plugin is scaffolded into a temporary
 * folder (linked to this workspace's node_modules, the SDK read from its sources); `// from <file>` samples must be
 * excerpts of the generated file (`// …` between the parts), `// src/…` and `// test/…` samples the whole file
 * (canary aside), `// examples/…` samples extra files; then the whole project type-checks with tsc.
 */
describe("docs/adapters.md", () => {
  const CANARY = /canary-acme_post-[0-9a-f]{12}/g
  const samples = [...readFileSync(Path.join(ROOT, "docs/adapters.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map(
    ([, body]) => body!
  )

  it("heads every TypeScript sample with the file it belongs to", () => {
    assert.isNotEmpty(samples)
    for (const sample of samples) {
      assert.match(sample.split("\n")[0]!, /^\/\/ (from )?(src|test|examples)\/[\w/.]+\.ts$/, sample)
    }
  })

  it("has samples that are the scaffold's files, or excerpts of them, and type-check against the SDK", () => {
    const dir = mkdtempSync(Path.join(Os.tmpdir(), "tawsil-doc-samples-"))
    try {
      const plugin = Path.join(dir, "plugin")
      const scaffold = spawnSync(
        process.execPath,
        [
          Path.join(ROOT, "packages/courier/src/scaffold/newAdapter.ts"),
          "acme_post",
          "--out",
          plugin,
          "--label",
          "Acme Post"
        ],
        { encoding: "utf8" }
      )
      assert.strictEqual(scaffold.status, 0, scaffold.stderr)
      symlinkSync(Path.join(ROOT, "node_modules"), Path.join(plugin, "node_modules"), "dir")
      const generated = (file: string) => readFileSync(Path.join(plugin, file), "utf8").replace(CANARY, "canary")
      const whole: Array<[string, string]> = []
      for (const sample of samples) {
        const [head = "", ...lines] = sample.split("\n")
        const [, from, file] = /^\/\/ (from )?(\S+)$/.exec(head) ?? []
        if (from !== undefined) {
          const text = generated(file!)
          const parts = lines.join("\n").split(/^\s*\/\/ …\s*$/m)
          for (const part of parts) assert.include(text, part.trim(), `docs/adapters.md's excerpt of ${file}`)
        } else {
          if (!file!.startsWith("examples/")) {
            assert.strictEqual(
              lines.join("\n").replace(CANARY, "canary"),
              generated(file!),
              `docs/adapters.md's ${file}`
            )
          }
          whole.push([file!, sample])
        }
      }
      for (const [file, sample] of whole) {
        mkdirSync(Path.dirname(Path.join(plugin, file)), { recursive: true })
        writeFileSync(Path.join(plugin, file), sample)
      }
      writeFileSync(
        Path.join(plugin, "tsconfig.doc.json"),
        JSON.stringify({
          extends: "./tsconfig.test.json",
          // The SDK from this workspace's sources, which sit outside the plugin's folder.
          compilerOptions: { customConditions: ["@tawsil/source"], rootDir: "/" },
          include: ["src", "test", "examples"]
        })
      )
      const tsc = spawnSync(
        process.execPath,
        [Path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.doc.json"],
        { cwd: plugin, encoding: "utf8" }
      )
      assert.strictEqual(tsc.status, 0, `the samples do not type-check:\n${tsc.stdout}${tsc.stderr}`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
