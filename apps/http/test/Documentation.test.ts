import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Discovery } from "@tawsil/courier"
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
