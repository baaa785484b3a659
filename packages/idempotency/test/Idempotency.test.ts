import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Redacted, Ref, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as Idempotency from "../src/Idempotency.ts"

/** The installation secret these tests hash with. */
const testSecret = Redacted.make("test-installation-secret")

import * as IdempotencyStore from "../src/IdempotencyStore.ts"

describe("Idempotency", () => {
  describe("IdempotencyKey", () => {
    const valid = [
      "a",
      "550e8400-e29b-41d4-a716-446655440000",
      "order:2026-11-21.retry_2",
      "ABC.def-123_4:5",
      "x".repeat(64)
    ]
    const invalid = ["", "x".repeat(65), "a b", "a/b", "a+b", "a=b", "clé", "a\nb", "'a'", "a,b", "€"]

    it("accepts 1 to 64 characters among A-Z a-z 0-9 _ - : .", () => {
      for (const key of valid) assert.isTrue(Schema.is(Idempotency.IdempotencyKey)(key), key)
      for (const key of invalid) assert.isFalse(Schema.is(Idempotency.IdempotencyKey)(key), JSON.stringify(key))
    })

    it.effect("parses a header value, bare or as a quoted structured-field string", () =>
      Effect.gen(function* () {
        assert.strictEqual(yield* Idempotency.parseKey("k-1"), "k-1")
        assert.strictEqual(yield* Idempotency.parseKey('"k-1"'), "k-1")
        assert.deepStrictEqual(
          yield* Effect.flip(Idempotency.parseKey(undefined)),
          new Idempotency.InvalidKey({ reason: "missing" })
        )
        for (const raw of ["", '""', '"k-1', "k 1", "x".repeat(65)]) {
          const error = yield* Effect.flip(Idempotency.parseKey(raw))
          assert.strictEqual(error.reason, "malformed", raw)
        }
      })
    )
  })

  describe("fingerprint", () => {
    const body = { customer: { name: "Amîn", phone: "0555123456" }, items: [{ id: 1, qty: 2 }], notes: "أمين" }
    const of = (method: string, path: string, value: unknown) =>
      Idempotency.fingerprintWith(testSecret, { method, path, body: value })

    it("is a SHA-256 in hex", () => {
      assert.match(of("POST", "/v1/orders", body), /^[0-9a-f]{64}$/)
    })

    it("ignores member order at every depth, and the method's case", () => {
      const reordered = { notes: "أمين", items: [{ qty: 2, id: 1 }], customer: { phone: "0555123456", name: "Amîn" } }
      assert.strictEqual(of("POST", "/v1/orders", reordered), of("POST", "/v1/orders", body))
      assert.strictEqual(of("post", "/v1/orders", body), of("POST", "/v1/orders", body))
    })

    it("changes with any value, array order, the method or the path", () => {
      const base = of("POST", "/v1/orders", body)
      const changed = [
        of("POST", "/v1/orders", { ...body, notes: "x" }),
        of("POST", "/v1/orders", { ...body, items: [{ id: 1, qty: 3 }] }),
        of("POST", "/v1/orders", { ...body, items: [{ id: 1, qty: 2 }, { id: 2 }] }),
        of("POST", "/v1/orders", { ...body, items: [{ id: 1, qty: "2" }] }),
        of("POST", "/v1/orders", { ...body, extra: null }),
        of("PATCH", "/v1/orders", body),
        of("POST", "/v1/orders/1", body)
      ]
      assert.strictEqual(new Set([base, ...changed]).size, changed.length + 1)
      assert.notStrictEqual(of("POST", "/x", [1, 2]), of("POST", "/x", [2, 1]))
    })

    it("treats an absent body as null, and leaves out undefined members", () => {
      assert.strictEqual(
        Idempotency.fingerprintWith(testSecret, { method: "DELETE", path: "/v1/keys/1" }),
        of("DELETE", "/v1/keys/1", null)
      )
      assert.strictEqual(of("POST", "/x", { a: 1, b: undefined }), of("POST", "/x", { a: 1 }))
    })
  })

  describe("canonicalJson", () => {
    it("writes RFC 8785 canonical JSON", () => {
      assert.strictEqual(
        Idempotency.canonicalJson({ b: [1, 1e21, 0.1, -0, "é\n"], a: { y: null, x: true }, "": false }),
        '{"":false,"a":{"x":true,"y":null},"b":[1,1e+21,0.1,0,"é\\n"]}'
      )
      // Sorted by UTF-16 code units: "\u20ac" (€) sorts before "\ud83d\ude00" (😀), though its code point is smaller.
      assert.strictEqual(Idempotency.canonicalJson({ "😀": 1, "€": 2, a: 3 }), '{"a":3,"€":2,"😀":1}')
    })
  })

  describe("scope", () => {
    it("is keyed by the installation's secret: the same parts hash apart under another secret", () => {
      const parts = ["shipping", "yalidine", { apiId: "id-1", apiToken: "secret" }, null]
      const other = Redacted.make("another-installation")
      assert.notStrictEqual(Idempotency.scopeWith(other, parts), Idempotency.scopeWith(testSecret, parts))
      const request = { method: "POST", path: "/v1/orders", body: { qty: 1 } }
      assert.notStrictEqual(
        Idempotency.fingerprintWith(other, request),
        Idempotency.fingerprintWith(testSecret, request)
      )
    })

    it("hashes its parts in order, objects in any member order", () => {
      const credentials = { apiId: "id-1", apiToken: "secret" }
      const scope = Idempotency.scopeWith(testSecret, ["shipping", "yalidine", credentials, null])
      assert.match(scope, /^[0-9a-f]{64}$/)
      assert.notInclude(scope, "secret")
      assert.strictEqual(
        Idempotency.scopeWith(testSecret, ["shipping", "yalidine", { apiToken: "secret", apiId: "id-1" }, null]),
        scope
      )
      assert.notStrictEqual(
        Idempotency.scopeWith(testSecret, ["shipping", "yalidine", { ...credentials, apiToken: "other" }, null]),
        scope
      )
      assert.notStrictEqual(
        Idempotency.scopeWith(testSecret, ["store", "7"]),
        Idempotency.scopeWith(testSecret, ["7", "store"])
      )
    })
  })

  describe("isStored", () => {
    it("keeps 2xx and 4xx answers but 429, never 5xx", () => {
      const cases: ReadonlyArray<readonly [number, boolean]> = [
        [200, true],
        [201, true],
        [204, true],
        [299, true],
        [400, true],
        [404, true],
        [409, true],
        [422, true],
        [428, true],
        [429, false],
        [430, true],
        [499, true],
        [500, false],
        [502, false],
        [503, false],
        [100, false],
        [304, false]
      ]
      for (const [status, stored] of cases) assert.strictEqual(Idempotency.isStored(status), stored, String(status))
    })
  })
})

const request = (key: string, body: unknown = { qty: 1 }, path = "/v1/orders"): Idempotency.Request => ({
  scope: Idempotency.scopeWith(testSecret, ["test", "store-7"]),
  key: Idempotency.IdempotencyKey.make(key),
  fingerprint: Idempotency.fingerprintWith(testSecret, { method: "POST", path, body })
})

const answer = (status: number, body = `{"status":${status}}`) =>
  new Idempotency.StoredResponse({ status, headers: { "content-type": "application/json" }, body })

const claimed = (outcome: Idempotency.Claimed | Idempotency.Replay) => {
  assert.strictEqual(outcome._tag, "Claimed")
  return outcome as Idempotency.Claimed
}

class Refused extends Schema.TaggedError<Refused>()("Refused", {}) {}

layer(Idempotency.layer().pipe(Layer.provideMerge(IdempotencyStore.layerMemory)))("Idempotency service", (it) => {
  it.effect("replays the first answer to the same request, and refuses the key for another request", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      const first = request("replay")
      yield* idempotency.complete(claimed(yield* idempotency.claim(first)), answer(201))
      assert.deepStrictEqual(yield* idempotency.claim(first), new Idempotency.Replay({ response: answer(201) }))
      for (const other of [request("replay", { qty: 2 }), request("replay", { qty: 1 }, "/v1/orders/9")]) {
        assert.deepStrictEqual(
          yield* Effect.flip(idempotency.claim(other)),
          new Idempotency.KeyReused({ key: first.key })
        )
      }
    })
  )

  it.effect("refuses the key at once for another request while the first is in flight", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      claimed(yield* idempotency.claim(request("busy-other")))
      const error = yield* Effect.flip(idempotency.claim(request("busy-other", { qty: 2 })))
      assert.strictEqual(error._tag, "KeyReused")
    })
  )

  it.effect("waits for an in-flight claim and replays its answer", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      const first = claimed(yield* idempotency.claim(request("wait")))
      const second = yield* Effect.forkChild(idempotency.claim(request("wait")))
      yield* TestClock.adjust("500 millis")
      assert.isUndefined(second.pollUnsafe(), "still waiting")
      yield* idempotency.complete(first, answer(201))
      yield* TestClock.adjust("100 millis")
      assert.deepStrictEqual(yield* Fiber.join(second), new Idempotency.Replay({ response: answer(201) }))
    })
  )

  it.effect("gives up waiting after WAIT with InFlight and a retry hint", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      claimed(yield* idempotency.claim(request("in-flight")))
      const second = yield* Effect.forkChild(Effect.flip(idempotency.claim(request("in-flight"))))
      yield* TestClock.adjust(Idempotency.WAIT)
      yield* TestClock.adjust("100 millis")
      const error = yield* Fiber.join(second)
      assert.deepStrictEqual(error, new Idempotency.InFlight({ key: "in-flight", retryAfterSeconds: 1 }))
    })
  )

  it.effect("stores 4xx answers, but frees the key after a 5xx or a 429", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      for (const status of [500, 502, 503, 429]) {
        const key = `unstored-${status}`
        yield* idempotency.complete(claimed(yield* idempotency.claim(request(key))), answer(status))
        claimed(yield* idempotency.claim(request(key)))
      }
      yield* idempotency.complete(claimed(yield* idempotency.claim(request("rule"))), answer(422))
      const replay = yield* idempotency.claim(request("rule"))
      assert.strictEqual(replay._tag === "Replay" ? replay.response.status : undefined, 422)
    })
  )

  it.effect("lets a retry claim a key whose holder vanished, once the lease has passed", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      claimed(yield* idempotency.claim(request("crashed")))
      yield* TestClock.adjust(Idempotency.LEASE)
      claimed(yield* idempotency.claim(request("crashed")))
    })
  )

  it.effect("release frees the key for a retry", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      yield* idempotency.release(claimed(yield* idempotency.claim(request("released"))))
      claimed(yield* idempotency.claim(request("released")))
    })
  )

  it.effect("run executes the write once and replays its answer", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      const writes = yield* Ref.make(0)
      const write = Effect.as(
        Ref.update(writes, (n) => n + 1),
        answer(201)
      )
      const first = yield* idempotency.run(request("run"), write)
      const second = yield* idempotency.run(request("run"), write)
      assert.deepStrictEqual(first, { response: answer(201), replayed: false })
      assert.deepStrictEqual(second, { response: answer(201), replayed: true })
      assert.strictEqual(yield* Ref.get(writes), 1)
    })
  )

  it.effect("run releases the key when the write fails or is interrupted", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      const failed = yield* Effect.flip(idempotency.run(request("run-fails"), Effect.fail(new Refused())))
      assert.instanceOf(failed, Refused)
      claimed(yield* idempotency.claim(request("run-fails")))

      const fiber = yield* Effect.forkChild(idempotency.run(request("run-interrupted"), Effect.never))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(fiber)
      claimed(yield* idempotency.claim(request("run-interrupted")))
    })
  )
})

class OutOfStock extends Schema.TaggedError<OutOfStock>()("OutOfStock", { sku: Schema.String }) {}

/** A write's answers: its result as 200, `OutOfStock` as a 422 to keep, anything else unanswered. */
const answers: Idempotency.Answers<number, OutOfStock | Refused> = {
  stored: (id) => answer(200, `{"id":${id}}`),
  refused: (error) => (error._tag === "OutOfStock" ? answer(422, `{"sku":"${error.sku}"}`) : undefined)
}

layer(Idempotency.layer().pipe(Layer.provideMerge(IdempotencyStore.layerMemory)))("Idempotency.transact", (it) => {
  it.effect("runs the write once and records its answer; the same request replays it", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      const writes = yield* Ref.make(0)
      const write = Effect.as(
        Ref.update(writes, (n) => n + 1),
        7
      )
      assert.deepStrictEqual(
        yield* idempotency.transact(request("transact"), write, answers),
        new Idempotency.Fresh({ value: 7 })
      )
      assert.deepStrictEqual(
        yield* idempotency.transact(request("transact"), write, answers),
        new Idempotency.Replay({ response: answer(200, '{"id":7}') })
      )
      assert.strictEqual(yield* Ref.get(writes), 1)
      const reused = yield* Effect.flip(idempotency.transact(request("transact", { qty: 2 }), write, answers))
      assert.deepStrictEqual(reused, new Idempotency.KeyReused({ key: "transact" }))
    })
  )

  it.effect("records a refusal that is an answer and replays it, without running the write again", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      const writes = yield* Ref.make(0)
      const write = Effect.andThen(
        Ref.update(writes, (n) => n + 1),
        Effect.fail(new OutOfStock({ sku: "TLM-0001" }))
      )
      const first = yield* idempotency.transact(request("transact-refused"), write, answers)
      assert.deepStrictEqual(first, new Idempotency.Refused({ error: new OutOfStock({ sku: "TLM-0001" }) }))
      const again = yield* idempotency.transact(request("transact-refused"), write, answers)
      assert.deepStrictEqual(again, new Idempotency.Replay({ response: answer(422, '{"sku":"TLM-0001"}') }))
      assert.strictEqual(yield* Ref.get(writes), 1)
    })
  )

  it.effect("fails with a failure that is no answer, or one not kept (429), and leaves the key free", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      const failed = yield* Effect.flip(
        idempotency.transact(request("transact-fails"), Effect.fail(new Refused()), answers)
      )
      assert.instanceOf(failed, Refused)
      const limited = yield* Effect.flip(
        idempotency.transact(request("transact-429"), Effect.fail(new OutOfStock({ sku: "x" })), {
          ...answers,
          refused: () => answer(429)
        })
      )
      assert.strictEqual(limited._tag, "OutOfStock")
      for (const key of ["transact-fails", "transact-429"]) {
        assert.deepStrictEqual(
          yield* idempotency.transact(request(key), Effect.succeed(1), answers),
          new Idempotency.Fresh({ value: 1 })
        )
      }
      const died = yield* Effect.exit(idempotency.transact(request("transact-dies"), Effect.die("boom"), answers))
      assert.strictEqual(died._tag, "Failure")
      claimed(yield* idempotency.claim(request("transact-dies")))
    })
  )
})

layer(Idempotency.layer().pipe(Layer.provideMerge(IdempotencyStore.layerMemory)))("Idempotency.leased", (it) => {
  it.effect("runs the write once under its key's lease and records its answer or its refusal; both replay", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      const writes = yield* Ref.make(0)
      const write = Effect.as(
        Ref.update(writes, (n) => n + 1),
        7
      )
      assert.deepStrictEqual(
        yield* idempotency.leased(request("leased"), write, answers),
        new Idempotency.Fresh({ value: 7 })
      )
      assert.deepStrictEqual(
        yield* idempotency.leased(request("leased"), write, answers),
        new Idempotency.Replay({ response: answer(200, '{"id":7}') })
      )
      const refuse = Effect.andThen(
        Ref.update(writes, (n) => n + 1),
        Effect.fail(new OutOfStock({ sku: "TLM-0001" }))
      )
      assert.deepStrictEqual(
        yield* idempotency.leased(request("leased-refused"), refuse, answers),
        new Idempotency.Refused({ error: new OutOfStock({ sku: "TLM-0001" }) })
      )
      assert.deepStrictEqual(
        yield* idempotency.leased(request("leased-refused"), refuse, answers),
        new Idempotency.Replay({ response: answer(422, '{"sku":"TLM-0001"}') })
      )
      assert.strictEqual(yield* Ref.get(writes), 2)
      const reused = yield* Effect.flip(idempotency.leased(request("leased", { qty: 2 }), write, answers))
      assert.deepStrictEqual(reused, new Idempotency.KeyReused({ key: "leased" }))
    })
  )

  it.effect("fails with a failure that is no answer, one not kept (429), or a defect, and leaves the key free", () =>
    Effect.gen(function* () {
      const idempotency = yield* Idempotency.Idempotency
      assert.instanceOf(
        yield* Effect.flip(idempotency.leased(request("leased-fails"), Effect.fail(new Refused()), answers)),
        Refused
      )
      const limited = yield* Effect.flip(
        idempotency.leased(request("leased-429"), Effect.fail(new OutOfStock({ sku: "x" })), {
          ...answers,
          refused: () => answer(429)
        })
      )
      assert.strictEqual(limited._tag, "OutOfStock")
      const died = yield* Effect.exit(idempotency.leased(request("leased-dies"), Effect.die("boom"), answers))
      assert.strictEqual(died._tag, "Failure")
      for (const key of ["leased-fails", "leased-429", "leased-dies"]) claimed(yield* idempotency.claim(request(key)))
    })
  )
})
