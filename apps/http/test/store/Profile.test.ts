/**
 * The store's profile and settings through the store API in memory (`src/store/profile`): `GET /v1/store` (any key,
 * cached 30 s) and `PATCH /v1/store` (`store:write`, recorded as `store.settings`), its refusals, its change and its
 * undo, read again after the cache window on `TestClock` time.
 */
import { assert, describe, it } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Effect, type Layer } from "effect"
import { TestClock } from "effect/testing"
import * as InMemory from "./InMemory.ts"

const { call, codeOf, createStore } = InMemory

type Services = Layer.Success<ReturnType<typeof InMemory.layer>>

/** Each test on its own services, on `TestClock` time from a November morning. */
const test = (name: string, body: Effect.Effect<void, never, Services>) =>
  it.effect(name, () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 8, 0, 0))
      yield* body
    }).pipe(Effect.provide(InMemory.layer()))
  )

/** Past the read cache's window. */
const afterTheWindow = TestClock.adjust("31 seconds")

const settingsBody = {
  name: "Maison Tlemcen — Artisanat",
  description: "Poteries et tapis de Tlemcen",
  language: "fr",
  logo: "stores/1/logo.png",
  favicon: "stores/1/favicon.ico",
  banner: "stores/1/banner.jpg",
  contact: {
    phone: "043 21 22 23",
    whatsapp: "+213 661 23 45 67",
    email: "bonjour@maison-tlemcen.dz",
    address: "12 rue de la Paix",
    wilaya_id: 13
  },
  social_links: { facebook: "https://www.facebook.com/maisontlemcen", instagram: null },
  currency: { symbol: "DA", position: "after", decimals: 2 }
}

describe("store profile and settings (memory)", () => {
  test(
    "reads the store with its settings in Algiers time, cached 30 s per key, the gates before the cache",
    Effect.gen(function* () {
      const store = yield* createStore({ name: "Maison Tlemcen", language: "fr" })
      const profile = yield* store.get("/v1/store")
      assert.strictEqual(profile.status, 200)
      assert.deepStrictEqual(Object.keys(profile.body.data), [
        "id",
        "name",
        "slug",
        "language",
        "description",
        "logo",
        "favicon",
        "banner",
        "theme",
        "contact",
        "social_links",
        "currency",
        "subdomain",
        "custom_domain",
        "custom_domain_verified",
        "public_url",
        "hide_branding",
        "created_at"
      ])
      assert.deepInclude(profile.body.data, {
        id: store.id,
        name: "Maison Tlemcen",
        slug: "maison-tlemcen",
        language: "fr",
        public_url: null,
        custom_domain_verified: false,
        theme: {
          primary_color: "#1f2937",
          secondary_color: "#f59e0b",
          background_color: "#ffffff",
          font_family: "Cairo"
        },
        contact: { phone: null, whatsapp: null, email: null, address: null, wilaya_id: null },
        currency: { symbol: "DA", position: "after", decimals: 0 }
      })
      assert.match(profile.body.data.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+01:00$/)
      assert.deepStrictEqual([profile.headers.get("x-cache"), profile.headers.get("x-api-version")], ["MISS", "v1"])
      const hit = yield* store.get("/v1/store")
      assert.deepStrictEqual([hit.headers.get("x-cache"), hit.headers.get("x-api-version")], ["HIT", null])
      assert.strictEqual(hit.text.replace(/"request_id":"[^"]+"/, ""), profile.text.replace(/"request_id":"[^"]+"/, ""))
      assert.strictEqual(hit.body.meta.request_id, hit.headers.get("x-request-id"))
      // Any key reads it: no scope (spec core).
      const narrow = yield* InMemory.keyWithScopes(store.id, ["orders:read"])
      assert.strictEqual((yield* narrow.get("/v1/store")).status, 200)
      // The gates before the cache: a store that lost its plan is refused, whatever is cached.
      yield* (yield* Admin.Admin).setPlan(store.id, "free").pipe(Effect.orDie)
      const refused = yield* store.get("/v1/store")
      assert.deepStrictEqual([...codeOf(refused), refused.headers.get("x-cache")], [403, "forbidden", null])
    })
  )

  test(
    "PATCH /v1/store writes the settings sent, answers the store, and is recorded as store.settings",
    Effect.gen(function* () {
      const store = yield* createStore({ name: "Maison Tlemcen" })
      const start = (yield* store.get("/v1/store")).body.data
      const noKey = yield* call("PATCH", "/v1/store", { token: store.token, body: { name: "x" } })
      assert.deepStrictEqual(codeOf(noKey), [400, "bad_request"])
      const key = InMemory.key()
      const patched = yield* store.write("PATCH", "/v1/store", settingsBody, key)
      assert.strictEqual(patched.status, 200, patched.text)
      assert.deepInclude(patched.body.data, {
        id: store.id,
        slug: start.slug,
        name: "Maison Tlemcen — Artisanat",
        language: "fr",
        logo: "stores/1/logo.png",
        contact: {
          phone: "043212223",
          whatsapp: "+213661234567",
          email: "bonjour@maison-tlemcen.dz",
          address: "12 rue de la Paix",
          wilaya_id: 13
        },
        social_links: {
          facebook: "https://www.facebook.com/maisontlemcen",
          instagram: null,
          tiktok: null,
          youtube: null
        },
        currency: { symbol: "DA", position: "after", decimals: 2 }
      })
      const replay = yield* store.write("PATCH", "/v1/store", settingsBody, key)
      assert.deepStrictEqual([replay.headers.get("idempotency-replay"), replay.text], ["1", patched.text])
      // The same key's read is cached until the window passes; another key reads the new settings at once.
      assert.strictEqual((yield* store.get("/v1/store")).body.data.name, "Maison Tlemcen")
      const other = yield* InMemory.keyWithScopes(store.id, ["store:read"])
      assert.strictEqual((yield* other.get("/v1/store")).body.data.name, "Maison Tlemcen — Artisanat")
      yield* afterTheWindow
      assert.deepStrictEqual((yield* store.get("/v1/store")).body.data, patched.body.data)
      const list = (yield* store.get("/v1/changes?entity=store.settings")).body.data.items
      assert.strictEqual(list.length, 1)
      assert.deepInclude(list[0], {
        entity: "store.settings",
        entity_id: "settings",
        action: "update",
        summary:
          "Updated store settings (name, description, language, logo, favicon, banner, contact, social_links, currency)",
        undone: false
      })
      const detail = (yield* store.get(`/v1/changes/${list[0].id}`)).body.data
      assert.strictEqual(detail.key_id, store.keyId)
      assert.deepInclude(detail.before, { name: "Maison Tlemcen", language: start.language, logo: null })
      assert.deepStrictEqual(detail.after.contact, patched.body.data.contact)
      // Nothing changed: nothing recorded.
      yield* store.write("PATCH", "/v1/store", { name: "Maison Tlemcen — Artisanat", slug: "ignored" })
      assert.strictEqual((yield* store.get("/v1/changes?entity=store.settings")).body.data.items.length, 1)
    })
  )

  test(
    "undo: 200, the settings read as before after the cache window; the undo of the undo applies them again",
    Effect.gen(function* () {
      const store = yield* createStore({ name: "Avant" })
      const before = (yield* store.get("/v1/store")).body.data
      const after = (yield* store.write("PATCH", "/v1/store", settingsBody)).body.data
      const change = (yield* store.get("/v1/changes?limit=1")).body.data.items[0]
      const undone = yield* store.write("POST", `/v1/changes/${change.id}/undo`)
      assert.deepStrictEqual(undone.body.data, {
        undone: true,
        change_id: change.id,
        entity: "store.settings",
        undo_change_id: change.id + 1
      })
      yield* afterTheWindow
      assert.deepStrictEqual((yield* store.get("/v1/store")).body.data, before)
      const undo = (yield* store.get(`/v1/changes/${change.id + 1}`)).body.data
      assert.deepInclude(undo, { summary: `Undo of change #${change.id}`, entity_id: "settings" })
      assert.deepStrictEqual(undo.before.name, after.name)
      assert.strictEqual((yield* store.write("POST", `/v1/changes/${change.id + 1}/undo`)).status, 200)
      yield* afterTheWindow
      assert.deepStrictEqual((yield* store.get("/v1/store")).body.data, after)
      assert.deepStrictEqual(codeOf(yield* store.write("POST", `/v1/changes/${change.id}/undo`)), [
        409,
        "already_undone"
      ])
    })
  )

  test(
    "scopes: PATCH needs store:write; a change's detail store:read, its undo store:write; app tokens write",
    Effect.gen(function* () {
      const store = yield* createStore()
      const reader = yield* InMemory.keyWithScopes(store.id, ["store:read"])
      const refused = yield* reader.write("PATCH", "/v1/store", { name: "Nouveau" })
      assert.deepStrictEqual(
        [...codeOf(refused), refused.body.error.message],
        [403, "forbidden", "Missing scope: store:write"]
      )
      const app = yield* InMemory.appToken(store.id, ["store:write"])
      const written = yield* app.write("PATCH", "/v1/store", { name: "Par une app" })
      assert.strictEqual(written.status, 200)
      const change = (yield* store.get("/v1/changes?limit=1")).body.data.items[0]
      assert.match((yield* store.get(`/v1/changes/${change.id}`)).body.data.key_id, /^app_[0-9a-f]{16}$/)
      assert.strictEqual((yield* reader.get(`/v1/changes/${change.id}`)).status, 200)
      const writer = yield* InMemory.keyWithScopes(store.id, ["store:write"])
      const noRead = yield* writer.get(`/v1/changes/${change.id}`)
      assert.deepStrictEqual(codeOf(noRead), [403, "forbidden"])
      assert.deepStrictEqual(codeOf(yield* reader.write("POST", `/v1/changes/${change.id}/undo`)), [403, "forbidden"])
      assert.strictEqual((yield* writer.write("POST", `/v1/changes/${change.id}/undo`)).status, 200)
      // The origin listener: no Idempotency-Key needed.
      const origin = yield* call("PATCH", "/v1/store", {
        token: store.token,
        body: { name: "Origine" },
        listener: "origin"
      })
      assert.deepStrictEqual([origin.status, origin.body.data.name], [200, "Origine"])
    })
  )

  test(
    "a field breaking its rule is 400 bad_request with the field's message, nothing written and the 400 replayed",
    Effect.gen(function* () {
      const store = yield* createStore({ name: "Intacte" })
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [[1], "Body must be a JSON object"],
        [{ name: "" }, "name must be 1 to 100 characters"],
        [{ name: "Nul\u0000" }, "name must be 1 to 100 characters"],
        [{ name: "\ud83d" }, "name must be 1 to 100 characters"],
        [{ description: "\udc00" }, "description must be a string of at most 1000 characters, or null"],
        [{ language: "en" }, "language must be ar or fr"],
        [{ logo: "https://evil.example/logo.png" }, "logo must be a path such as stores/12/logo.png"],
        [{ contact: { email: "@" } }, "contact.email must be an email address of at most 254 characters, or null"],
        [{ contact: { wilaya_id: 1e308 } }, "contact.wilaya_id must be 1-58, or null"],
        [{ social_links: { youtube: "ftp://youtube.com/x" } }, "social_links.youtube must be an https URL"],
        // Links to hosts that are not public (the address rules of @tawsil/egress): never stored.
        ...[
          "https://169.254.169.254/latest/meta-data/",
          "https://127.0.0.1/",
          "https://10.0.0.7/",
          "https://192.168.1.1/admin",
          "https://2130706433/",
          "https://0x7f.1/",
          "https://[::1]/",
          "https://localhost./",
          "https://localhost/",
          "https://metadata.google.internal/computeMetadata/v1/",
          "https://127.0.0.1#@example.com/",
          "https://user:secret@facebook.com/shop",
          "https://facebook.com:8443/shop"
        ].map((link) => [{ social_links: { facebook: link } }, "social_links.facebook must be an https URL"] as const)
      ]
      for (const [body, message] of cases) {
        const key = InMemory.key()
        const refused = yield* store.write("PATCH", "/v1/store", body, key)
        assert.deepStrictEqual(codeOf(refused), [400, "bad_request"], JSON.stringify(body))
        assert.isTrue(refused.body.error.message.startsWith(message), refused.body.error.message)
        const replay = yield* store.write("PATCH", "/v1/store", body, key)
        assert.deepStrictEqual([replay.status, replay.headers.get("idempotency-replay")], [400, "1"])
      }
      // Numbers JSON cannot hold: infinity, and 2^53 + 1 (read as 2^53).
      for (const [raw, message] of [
        ['{"currency":{"decimals":1e309}}', "currency.decimals must be 0 or 2"],
        ['{"contact":{"wilaya_id":9007199254740993}}', "contact.wilaya_id must be 1-58, or null"]
      ]) {
        const refused = yield* call("PATCH", "/v1/store", { token: store.token, key: InMemory.key(), raw })
        assert.deepStrictEqual([...codeOf(refused), refused.body.error.message], [400, "bad_request", message])
      }
      yield* afterTheWindow
      assert.strictEqual((yield* store.get("/v1/store")).body.data.name, "Intacte")
      assert.strictEqual((yield* store.get("/v1/changes")).body.data.items.length, 0)
    })
  )
})
