import { assert, describe, it } from "@effect/vitest"
import { define, InvalidAdapter } from "@tawsil/courier/CourierAdapter"
import { Effect, Schema } from "effect"
import * as Catalogue from "../src/Catalogue.ts"

const pinned = define({
  platform: "alpha",
  couriers: [
    { key: "alpha_one", name: "Alpha One", aliases: ["one"], endpoint: { origin: "https://api.alpha.dz" } },
    { key: "alpha_two", name: "Alpha Two", aliases: [], endpoint: { origin: "https://two.alpha.dz" } }
  ],
  credentials: Schema.Struct({ apiId: Schema.String, apiToken: Schema.RedactedFromValue(Schema.String) }),
  statuses: { x: "created" },
  operations: { track: () => Effect.succeed([]) }
})

const tenant = define({
  platform: "beta",
  couriers: [{ key: "beta", name: "Beta tenants", aliases: [], endpoint: { tenantDomain: "beta.dz" } }],
  statuses: {},
  operations: { create: () => Effect.succeed({ trackingNumber: "B1", rawStatus: "x" }) }
})

describe("Catalogue", () => {
  const catalogue = Catalogue.make([pinned, tenant])

  it("lists one entry per courier, with capabilities derived from the operations", () => {
    const none = {
      create: false,
      track: false,
      rates: false,
      label: false,
      cancel: false,
      dispatch: false,
      trackBatch: false,
      createBatch: false,
      stopDesks: false,
      communes: false,
      checkCredentials: false,
      push: false
    }
    assert.deepStrictEqual(
      catalogue.entries.map((entry) => [entry.key, entry.capabilities]),
      [
        ["alpha_one", { ...none, track: true }],
        ["alpha_two", { ...none, track: true }],
        ["beta", { ...none, create: true }]
      ]
    )
    const one = catalogue.resolve("alpha_one")!.entry
    assert.deepStrictEqual(one.requiredCredentials, ["apiId", "apiToken"])
    assert.strictEqual(one.endpoint, "https://api.alpha.dz")
    assert.isFalse(one.requiresBaseUrl)
    const beta = catalogue.resolve("beta")!.entry
    assert.isTrue(beta.requiresBaseUrl)
    assert.strictEqual(beta.endpoint, "https://<tenant>.beta.dz")
    assert.strictEqual(beta.tenantDomain, "beta.dz")
  })

  it("resolves keys and aliases, case-insensitively", () => {
    assert.strictEqual(catalogue.resolve("ONE")?.entry.key, "alpha_one")
    assert.strictEqual(catalogue.resolve(" alpha_two ")?.entry.key, "alpha_two")
    assert.isUndefined(catalogue.resolve("gamma"))
  })

  it("filters by platform and by q over key, name and aliases", () => {
    assert.deepStrictEqual(
      catalogue.list({ platform: "beta" }).map((entry) => entry.key),
      ["beta"]
    )
    assert.deepStrictEqual(
      catalogue.list({ q: "two" }).map((entry) => entry.key),
      ["alpha_two"]
    )
    assert.deepStrictEqual(
      catalogue.list({ q: "one" }).map((entry) => entry.key),
      ["alpha_one"]
    )
    assert.lengthOf(catalogue.list({}), 3)
  })

  it("matches q ignoring case, spaces, underscores, hyphens and dots, in any name of a courier", () => {
    for (const q of ["ALPHA TWO", "alpha-two", "alphatwo", " Alpha_Two ", "a.l.p.h.a two"]) {
      assert.deepStrictEqual(
        catalogue.list({ q }).map((entry) => entry.key),
        ["alpha_two"],
        q
      )
    }
    assert.deepStrictEqual(
      catalogue.list({ q: "O N E" }).map((entry) => entry.key),
      ["alpha_one"]
    )
    assert.deepStrictEqual(
      catalogue.list({ q: "betatenants" }).map((entry) => entry.key),
      ["beta"]
    )
    assert.lengthOf(catalogue.list({ q: " _ " }), 3)
    assert.lengthOf(catalogue.list({ q: "gamma" }), 0)
  })

  it("refuses two couriers with one name (fail closed)", () => {
    const clash = define({
      platform: "gamma",
      couriers: [{ key: "gamma", name: "Gamma", aliases: ["one"], endpoint: { origin: "https://gamma.dz" } }],
      statuses: {},
      operations: {}
    })
    assert.throws(() => Catalogue.make([pinned, clash]), InvalidAdapter)
  })

  it("refuses malformed manifests at definition", () => {
    assert.throws(
      () =>
        define({
          platform: "bad",
          couriers: [{ key: "Bad Key", name: "x", aliases: [], endpoint: { origin: "https://x.dz" } }],
          statuses: {},
          operations: {}
        }),
      InvalidAdapter
    )
    assert.throws(
      () =>
        define({
          platform: "bad",
          couriers: [{ key: "bad", name: "x", aliases: [], endpoint: { origin: "http://x.dz" } }],
          statuses: {},
          operations: {}
        }),
      InvalidAdapter
    )
    assert.throws(
      () =>
        define({
          platform: "bad",
          couriers: [{ key: "bad", name: "x", aliases: [], endpoint: { origin: "https://x.dz" } }],
          statuses: { raw: "teleported" as never },
          operations: {}
        }),
      InvalidAdapter
    )
  })
})
