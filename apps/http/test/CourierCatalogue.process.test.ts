import { readFileSync } from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Catalogue } from "@tawsil/shipping"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect } from "effect"
import { discover, render } from "../src/CourierCatalogue.ts"
import { getJson, startApp } from "./AppProcess.ts"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

describe("CourierCatalogue", () => {
  it.effect("docs/couriers.md matches the installed adapters' manifests (run npm run docs:couriers)", () =>
    Effect.gen(function* () {
      const installed = yield* discover
      assert.strictEqual(readFileSync(Path.join(ROOT, "docs/couriers.md"), "utf8"), render(installed))
    })
  )

  it.effect("serves every courier key the public dzship client's README names, with the credentials it names", () =>
    Effect.gen(function* () {
      const catalogue = Catalogue.make((yield* discover).map(({ adapter }) => adapter))
      // The couriers table of the dzship package this repository installs (a devDependency): one row per family.
      const readme = readFileSync(Path.join(ROOT, "node_modules/dzship/README.md"), "utf8")
      const lines = readme.slice(readme.indexOf("| Family |")).split("\n")
      const rows = lines
        .slice(
          2,
          lines.findIndex((line) => !line.startsWith("|"))
        )
        .map((line) => line.split("|").map((cell) => cell.trim()))
      assert.isAtLeast(rows.length, 12)
      const ticked = (cell: string) => [...cell.matchAll(/`([A-Za-z0-9_]+)`/g)].map((match) => match[1]!)
      const missing: Array<string> = []
      for (const [, , keys = "", credentials = ""] of rows) {
        for (const key of ticked(keys)) {
          const resolved = catalogue.resolve(key)
          if (resolved === undefined) missing.push(key)
          else assert.deepStrictEqual(resolved.entry.requiredCredentials, ticked(credentials), key)
        }
      }
      assert.deepStrictEqual(missing, [], "dzship keys the catalogue does not resolve")
    })
  )

  it.effect("holds at least 99 named real couriers over at least 12 platforms, every key and alias unique", () =>
    Effect.gen(function* () {
      const installed = yield* discover
      const manifests = installed.flatMap(({ adapter }) =>
        adapter.platform === "sandbox" ? [] : adapter.couriers.map((courier) => ({ adapter, courier }))
      )
      const named = manifests.filter(({ courier }) => "origin" in courier.endpoint)
      assert.isAtLeast(named.length, 99)
      assert.isAtLeast(new Set(manifests.map(({ adapter }) => adapter.platform)).size, 12)
      const names = installed.flatMap(({ adapter }) =>
        adapter.couriers.flatMap((courier) => [courier.key, ...courier.aliases])
      )
      assert.deepStrictEqual(
        names.filter((name, index) => names.indexOf(name) !== index),
        [],
        "names taken twice"
      )
      // The catalogue refuses a clash itself (fail closed); rendering builds one.
      assert.doesNotThrow(() => render(installed))
    })
  )

  it.live("GET /v1/couriers lists them all, and ?q= finds a courier by any alias, however it is spelled", () =>
    Effect.gen(function* () {
      const installed = yield* discover
      const app = yield* startApp({ DATA_DIR: yield* TestDatabase.migratedDataDir })
      const all = yield* getJson(`${app.shippingUrl}/v1/couriers`)
      assert.strictEqual(all.status, 200)
      assert.strictEqual(
        all.body.length,
        installed.map(({ adapter }) => adapter.couriers.length).reduce((a, b) => a + b)
      )
      const keys = async (q: string) => {
        const response = await fetch(`${app.shippingUrl}/v1/couriers?q=${encodeURIComponent(q)}`)
        assert.strictEqual(response.status, 200, q)
        return ((await response.json()) as ReadonlyArray<{ key: string }>).map((entry) => entry.key)
      }
      for (const [q, key] of [
        ["msm_go", "msmgo"],
        ["MSM Go", "msmgo"],
        ["rocket_delivery", "rocketdelivery"],
        ["Rocket-Delivery", "rocketdelivery"],
        ["hdd_express", "hhdexpress"],
        ["HDD EXPRESS", "hhdexpress"],
        ["anderson", "andersondelivery"],
        ["e48hr", "e48hrlivraison"],
        ["easy_and_speed", "easyandspeed"],
        ["zrexpressnew", "zrexpress_new"],
        ["leopardexpress", "leopard_express"],
        ["noest_express", "noest"],
        ["maystro_delivery", "maystro"]
      ] as const) {
        assert.include(yield* Effect.promise(() => keys(q)), key, q)
      }
      assert.deepStrictEqual(yield* Effect.promise(() => keys("no such courier anywhere")), [])
    }).pipe(Effect.scoped)
  )
})
