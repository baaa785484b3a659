/**
 * Webhook subscriptions through the store API in memory (`src/store/webhooks`): their shapes, the secret shown once
 * (a replay shows none), rotation, delete, every hostile URL class refused at subscription, the scopes, path ids.
 * Deliveries to a real receiver, and their log, are `../Webhooks.db.test.ts`'s, on both databases.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Egress } from "@tawsil/egress"
import { Effect, Layer, Redacted } from "effect"
import { hostileNames, hostileUrls } from "../../../../packages/webhooks/test/HostileUrls.ts"
import * as InMemory from "./InMemory.ts"

const { codeOf, createStore, key } = InMemory

const resolver = Layer.succeed(Egress.Resolver, {
  lookup: (host: string) =>
    Effect.succeed(host === "hooks.example.com" ? ["93.184.215.14"] : (hostileNames[host] ?? []))
})

layer(InMemory.layer({ resolver }), { excludeTestServices: true })("webhooks (memory)", (it) => {
  it.effect("manages subscriptions: the secret shown once, a list with no pagination fields, rotation, delete", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const k = key()
      const body = { url: "https://hooks.example.com/tawsil", events: ["order.created"], description: "ERP" }
      const created = yield* InMemory.call("POST", "/v1/webhooks", { token: store.token, key: k, body })
      assert.strictEqual(created.status, 200)
      const hook = created.body.data
      assert.match(hook.secret, /^whsec_[0-9a-f]{64}$/)
      assert.deepStrictEqual(
        { ...hook, secret: "…", id: 0, created_at: "…", updated_at: "…" },
        {
          id: 0,
          url: "https://hooks.example.com/tawsil",
          events: ["order.created"],
          active: true,
          description: "ERP",
          previous_secret_expires_at: null,
          created_at: "…",
          updated_at: "…",
          secret: "…"
        }
      )
      const replay = yield* InMemory.call("POST", "/v1/webhooks", { token: store.token, key: k, body })
      assert.strictEqual(replay.headers.get("idempotency-replay"), "1")
      assert.strictEqual(replay.body.data.secret, null, "a replay never shows the secret again")
      assert.strictEqual(replay.body.data.id, hook.id)

      const list = yield* InMemory.call("GET", "/v1/webhooks", { token: store.token })
      assert.deepStrictEqual(Object.keys(list.body.data), ["items"])
      assert.strictEqual(list.body.data.items.length, 1)
      assert.notProperty(list.body.data.items[0], "secret")
      assert.notInclude(list.text, hook.secret)

      const rotated = yield* InMemory.call("PATCH", `/v1/webhooks/${hook.id}`, {
        token: store.token,
        key: key(),
        body: { rotate_secret: true, active: false }
      })
      assert.strictEqual(rotated.status, 200)
      assert.match(rotated.body.data.secret, /^whsec_/)
      assert.notStrictEqual(rotated.body.data.secret, hook.secret)
      assert.isString(rotated.body.data.previous_secret_expires_at)
      assert.strictEqual(rotated.body.data.active, false)

      const other = yield* createStore()
      const foreign = yield* InMemory.call("DELETE", `/v1/webhooks/${hook.id}`, { token: other.token, key: key() })
      assert.deepStrictEqual([foreign.status, foreign.body.error.code], [404, "not_found"])
      const deleted = yield* InMemory.call("DELETE", `/v1/webhooks/${hook.id}`, { token: store.token, key: key() })
      assert.deepStrictEqual(deleted.body.data, { deleted: true, id: hook.id })
      const gone = yield* InMemory.call("GET", `/v1/webhooks/${hook.id}/deliveries`, { token: store.token })
      assert.strictEqual(gone.status, 404)
    })
  )

  it.effect("refuses every hostile URL class at subscription with 400, and names the rule", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const urls = [
        ...hostileUrls.map(([url]) => url),
        ...Object.keys(hostileNames).map((name) => `https://${name}/hook`)
      ]
      for (const url of urls) {
        const answer = yield* InMemory.call("POST", "/v1/webhooks", {
          token: store.token,
          key: key(),
          body: { url, events: ["order.created"] }
        })
        assert.deepStrictEqual([answer.status, answer.body.error.code], [400, "bad_request"], url)
        assert.match(answer.body.error.message, /^url/, url)
      }
      const list = yield* InMemory.call("GET", "/v1/webhooks", { token: store.token })
      assert.deepStrictEqual(list.body.data.items, [])
    })
  )

  it.effect("scopes: webhooks:read and webhooks:write; a public key is refused", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const admin = yield* Admin.Admin
      const app = yield* admin.createAppToken(store.id, ["orders:read"])
      const token = Redacted.value(app.token)
      const read = yield* InMemory.call("GET", "/v1/webhooks", { token })
      assert.deepStrictEqual([read.status, read.body.error.message], [403, "Missing scope: webhooks:read"])
      const write = yield* InMemory.call("POST", "/v1/webhooks", {
        token,
        key: key(),
        body: { url: "https://hooks.example.com/", events: ["order.created"] }
      })
      assert.deepStrictEqual([write.status, write.body.error.message], [403, "Missing scope: webhooks:write"])
      const publicKey = yield* admin.createKey(store.id, "public")
      const signedKey = yield* InMemory.call("GET", "/v1/webhooks", {
        headers: { authorization: `TW-Public ${publicKey.key_id}` }
      })
      assert.strictEqual(signedKey.status, 401)
    })
  )

  it.effect("path ids: digits only (400), past any webhook or delivery, or 0 (404)", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const hook = (yield* store.write("POST", "/v1/webhooks", {
        url: "https://hooks.example.com/tawsil",
        events: ["order.created"]
      })).body.data
      for (const at of [
        (id: string) => store.write("PATCH", `/v1/webhooks/${id}`, { active: false }),
        (id: string) => store.write("DELETE", `/v1/webhooks/${id}`),
        (id: string) => store.get(`/v1/webhooks/${id}/deliveries`),
        (id: string) => store.write("POST", `/v1/webhooks/${id}/deliveries/1/retry`),
        (id: string) => store.write("POST", `/v1/webhooks/${hook.id}/deliveries/${id}/retry`)
      ]) {
        const letters = yield* at("abc")
        assert.deepStrictEqual(codeOf(letters), [400, "bad_request"])
        assert.match(letters.body.error.message, /^Invalid path\.(id|delivery_id): must be all digits$/)
        for (const id of ["0", "2147483648", "99999999999999999999"]) {
          assert.deepStrictEqual(codeOf(yield* at(id)), [404, "not_found"], id)
        }
      }
      const log = yield* store.get(`/v1/webhooks/${hook.id}/deliveries`)
      assert.deepStrictEqual([log.status, log.body.data.items], [200, []])
    })
  )
})
