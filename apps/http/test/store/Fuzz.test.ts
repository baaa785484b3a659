/**
 * The store API's write fuzz at its full count, in memory: the generated bodies of `../StoreFuzzBodies.ts` (mutations
 * of a valid body, arbitrary JSON, nasty values, text that is not JSON, valid bodies) sent to every write endpoint
 * through the real handlers and pipeline, each under a fresh `Idempotency-Key` (signed for signups and events). Every
 * answer must be a 2xx `{ data, meta }` or a 4xx in the error envelope, never a 5xx; text that is not JSON must say
 * so; and no refused string may show in what the store then lists.
 *
 * Then the exhaustive tables of `../StoreFuzzTables.ts`: every text field and key of every write with each string
 * PostgreSQL cannot keep, every amount and quantity with each huge number, every text query parameter, 300
 * `Idempotency-Key` values, landing page sections, shipping and the store's configuration, each answering its rule.
 *
 * `../StoreFuzz.db.test.ts` runs the first of the same generated bodies and the same tables over sockets on each
 * database, and checks what each database stored.
 */
import { assert, layer } from "@effect/vitest"
import { Admin } from "@tawsil/access"
import { Effect } from "effect"
import fc from "fast-check"
import {
  CONCURRENCY,
  type Fixture,
  FULL_CONFIG_RUNS,
  FULL_RUNS,
  fixtureEntities,
  MARK,
  notJsonAnswered,
  problemOf,
  SECTION_SEED,
  SEED,
  SHIPPING_SEED,
  sectionTargets,
  sentTo,
  serialise,
  shippingTargets,
  Tally,
  type Target,
  targets
} from "../StoreFuzzBodies.ts"
import * as Tables from "../StoreFuzzTables.ts"
import * as InMemory from "./InMemory.ts"

/** `Idempotency-Key` values sent (the first 40 of them over sockets on each database). */
const HEADER_RUNS = 300

/** What a request sends: the store's bearer key and a fresh `Idempotency-Key`, or a signature with the public key. */
const send = (fixture: Fixture, method: string, path: string, text: string | undefined, signed = false) =>
  signed
    ? InMemory.call(method, path, { headers: InMemory.signedHeaders(fixture.signer, text ?? ""), raw: text ?? "" })
    : InMemory.call(method, path, { token: fixture.token, key: InMemory.key(), raw: text })

/**
 * A store whose per-minute limit is lifted, with products, pending orders, landing pages, webhooks, promo codes and
 * pixels to PATCH, and an active public key: the fixture of `../StoreFuzz.db.test.ts`.
 */
const fixture = Effect.gen(function* () {
  const admin = yield* Admin.Admin
  const store = yield* InMemory.createStore()
  yield* admin.setQuota(store.id, { requestsPerMinute: -1 }).pipe(Effect.orDie)
  const signer = yield* InMemory.publicKey(store.id)
  const write = (path: string, body: unknown) =>
    Effect.map(store.write("POST", path, body), (answer) => {
      assert.isTrue(answer.status === 200 || answer.status === 201, answer.text)
      return answer.body.data.id as number
    })
  const entities = yield* fixtureEntities(store.id, write)
  return {
    base: "memory",
    storeId: store.id,
    token: store.token,
    signer,
    ...entities
  } satisfies Fixture
})

/** What a success takes up, given back at once through the API: a key revoked, a subscription or section removed. */
const cleanUp = (target: Target, fixture: Fixture, answer: InMemory.Answer) => {
  switch (target.name) {
    case "POST /v1/landing-pages/{id}/sections":
      return send(fixture, "DELETE", `${target.path(fixture, 0)}/${answer.body.data.id}`, undefined)
    case "POST /v1/keys":
      return send(fixture, "DELETE", `/v1/keys/${answer.body.data.key_id}`, undefined)
    case "POST /v1/webhooks":
      return send(fixture, "DELETE", `/v1/webhooks/${answer.body.data.id}`, undefined)
    default:
      return Effect.void
  }
}

/** One request per generated body, `CONCURRENCY` at a time, as `../StoreFuzz.db.test.ts` sends them over sockets. */
const fuzz = (target: Target, fixture: Fixture, runs: number, seed: number) =>
  Effect.gen(function* () {
    const cases = fc.sample(fc.tuple(sentTo(target.valid(fixture)), fc.nat()), { numRuns: runs, seed })
    const tally = new Tally()
    yield* Effect.forEach(
      cases,
      ([sent, pick]) =>
        Effect.gen(function* () {
          const path = target.path(fixture, pick)
          const text = sent.kind === "raw" ? sent.text : serialise(sent.body)
          const answer = yield* send(fixture, target.method, path, text, target.signed)
          tally.record(`${target.method} ${path}`, sent, answer, notJsonAnswered(sent))
          if (answer.status >= 200 && answer.status < 300) yield* cleanUp(target, fixture, answer)
        }),
      { concurrency: CONCURRENCY, discard: true }
    )
    return tally
  })

/** What the store lists after the fuzz: in the envelope, and with no trace of a string that had to be refused. */
const LISTS = [
  "/v1/orders?limit=100",
  "/v1/customers?limit=100",
  "/v1/products?limit=100",
  "/v1/landing-pages?limit=100",
  "/v1/webhooks",
  "/v1/promo-codes?limit=100",
  "/v1/pixels?limit=100",
  "/v1/categories?limit=100",
  "/v1/keys"
]

layer(InMemory.layer({ allowHosts: { hosts: new Set(["127.0.0.1"]) } }), { excludeTestServices: true })(
  "store API fuzz (memory)",
  (it) => {
    targets.forEach((target, index) => {
      const count = target.config === true ? FULL_CONFIG_RUNS : FULL_RUNS
      it.effect(
        `${target.name}: ${count} generated bodies answer 2xx or a 4xx in the envelope, never a 5xx`,
        () =>
          Effect.gen(function* () {
            const setup = yield* fixture
            // The seeds of `../StoreFuzz.db.test.ts`: its bodies are the first of these.
            const tally = yield* fuzz(target, setup, count, SEED + index)
            assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
            assert.strictEqual(tally.total, count)
            assert.isAbove(tally.countBetween(400, 499), count / 5, "most generated bodies are refused")
            assert.isAbove(tally.countBetween(200, 299), 0, "valid bodies are accepted")
            for (const path of LISTS) {
              const listed = yield* InMemory.call("GET", path, { token: setup.token })
              assert.isUndefined(problemOf(listed), `${path}: ${listed.text.slice(0, 300)}`)
              assert.notInclude(listed.text, MARK, `${path} holds a refused string`)
            }
          }),
        120_000
      )
    })

    /** The generated bodies' rule for a fuzzed endpoint. */
    const judge = (tally: Tally, count: number) => {
      assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
      assert.strictEqual(tally.total, count)
      assert.isAbove(tally.countBetween(400, 499), count / 5, "most generated bodies are refused")
      assert.isAbove(tally.countBetween(200, 299), 0, "valid bodies are accepted")
    }

    it.effect(
      `landing page sections: ${FULL_CONFIG_RUNS} generated bodies each answer 2xx or a 4xx in the envelope`,
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const sections = `/v1/landing-pages/${setup.pageIds[0]}/sections`
          const hero = yield* send(setup, "POST", sections, '{"type":"hero"}')
          assert.strictEqual(hero.status, 201, hero.text)
          for (const [index, target] of sectionTargets(sections, `${sections}/${hero.body.data.id}`).entries()) {
            judge(yield* fuzz(target, setup, FULL_CONFIG_RUNS, SECTION_SEED + index), FULL_CONFIG_RUNS)
          }
          const listed = yield* InMemory.call("GET", sections, { token: setup.token })
          assert.notInclude(listed.text, MARK, "no refused string kept")
        }),
      120_000
    )

    it.effect(
      "shipping rates and settings, and the rate sync: generated bodies answer 2xx or a 4xx in the envelope",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          // Three endpoints in one test: half the configuration endpoints' count each.
          const count = Math.ceil(FULL_CONFIG_RUNS / 2)
          for (const [index, target] of shippingTargets.entries()) {
            // The sync prices from the origin wilaya: set again after the settings' fuzz.
            yield* send(setup, "PATCH", "/v1/shipping/settings", '{"origin_wilaya":16}')
            judge(yield* fuzz(target, setup, count, SHIPPING_SEED + index), count)
          }
          for (const path of ["/v1/shipping/rates", "/v1/shipping/settings"]) {
            const listed = yield* InMemory.call("GET", path, { token: setup.token })
            assert.notInclude(listed.text, MARK, `${path} holds a refused string`)
          }
        }),
      120_000
    )

    /** How the exhaustive tables send a write to the fixture's store. */
    const sender = (fixture: Fixture) => (method: string, path: string, text: string | undefined, signed?: boolean) =>
      send(fixture, method, path, text, signed)

    it.effect(
      "a string PostgreSQL cannot keep, in any text field or key of any write, answers that field's refusal",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const tally = yield* Tables.unstorableText(setup, sender(setup))
          assert.isAtLeast(tally.total, 400)
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
        })
    )

    it.effect(
      "a huge number (1e308, 1e309 as written, 2^53 + 1, as a string) in any amount or quantity is refused",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const { tally, zeroes } = yield* Tables.hugeNumbers(setup, sender(setup))
          assert.isAtLeast(tally.total, 250)
          assert.isAbove(zeroes, 0, "zero is an amount")
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
        })
    )

    it.effect("a query value PostgreSQL cannot keep matches nothing or follows the parameter's rule, never a 5xx", () =>
      Effect.gen(function* () {
        const setup = yield* fixture
        const get = (path: string) => InMemory.call("GET", path, { token: setup.token })
        const order = yield* get(`/v1/orders/${setup.orderIds[0]}`)
        const tally = yield* Tables.queryValues(setup, order.body.data.customer.id, get, sender(setup))
        assert.isAtLeast(tally.total, 300)
        assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
      })
    )

    it.effect(`Idempotency-Key: ${HEADER_RUNS} generated values answer 400 or 200, never a 5xx`, () =>
      Effect.gen(function* () {
        const setup = yield* fixture
        // Sent as fetch sends a header value: trimmed of spaces and tabs at the ends.
        const tally = yield* Tables.idempotencyKeys(setup, HEADER_RUNS, SEED, (key, body) =>
          InMemory.call("POST", "/v1/landing-pages", {
            token: setup.token,
            body,
            headers: { "idempotency-key": key.replace(/^[ \t]+|[ \t]+$/g, "") }
          })
        )
        assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
        assert.isAbove(tally.count(200), 0)
        assert.isAbove(tally.count(400), 0)
      })
    )

    it.effect("landing page sections: unstorable text and huge numbers anywhere answer their 422", () =>
      Effect.gen(function* () {
        const setup = yield* fixture
        const sections = `/v1/landing-pages/${setup.pageIds[0]}/sections`
        const hero = yield* send(setup, "POST", sections, '{"type":"hero"}')
        assert.strictEqual(hero.status, 201, hero.text)
        const tally = yield* Tables.sectionValues(sections, `${sections}/${hero.body.data.id}`, sender(setup))
        assert.isAtLeast(tally.total, 60)
        assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
      })
    )

    it.effect(
      "shipping rates and settings, and the rate sync: unstorable text and huge numbers anywhere answer 400",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          yield* send(setup, "PATCH", "/v1/shipping/settings", '{"origin_wilaya":16}')
          const tally = yield* Tables.shippingValues(sender(setup))
          assert.isAtLeast(tally.total, 100)
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
        })
    )

    it.effect(
      "a string PostgreSQL cannot keep, or a huge number, in any field of a configuration write answers 400",
      () =>
        Effect.gen(function* () {
          const setup = yield* fixture
          const section = yield* send(setup, "POST", "/v1/store/home-layout/sections", '{"type":"categories"}')
          const tally = yield* Tables.configurationValues(section.body.data.section.id as number, sender(setup))
          assert.isAtLeast(tally.total, 300)
          assert.deepStrictEqual(tally.problems, [], `${tally.problemCount} answers broke the rules`)
          const layout = yield* InMemory.call("GET", "/v1/store/home-layout?after=fuzz", { token: setup.token })
          assert.strictEqual(layout.body.data.sections.length, 1, "no section added by a refused body")
        })
    )

    it.effect("a pixel id outside its platform's usual format is saved as sent, with warnings never recorded", () =>
      Effect.gen(function* () {
        const setup = yield* fixture
        const get = (path: string) => InMemory.call("GET", path, { token: setup.token })
        const created = yield* send(
          setup,
          "POST",
          "/v1/pixels",
          JSON.stringify({ pixel_type: "GTM", pixel_id: "gtm_2" })
        )
        assert.strictEqual(created.status, 201, created.text)
        const warning = {
          field: "pixel_id",
          code: "unusual_pixel_id",
          message:
            "pixel_id is not in the usual gtm format (GTM- and 4 to 10 letters or digits); it was saved as sent: " +
            "check it against the platform"
        }
        assert.deepStrictEqual([created.body.data.pixel_id, created.body.data.warnings], ["gtm_2", [warning]])
        const patched = yield* send(setup, "PATCH", `/v1/pixels/${created.body.data.id}`, '{"pixel_name":"Ancien"}')
        assert.deepStrictEqual(patched.body.data.warnings, [warning])
        const listed = (yield* get("/v1/pixels")).body.data.items
        assert.deepStrictEqual(
          listed.map((pixel: { pixel_id: string; warnings: ReadonlyArray<unknown> }) => [
            pixel.pixel_id,
            pixel.warnings.length
          ]),
          [
            ["gtm_2", 1],
            ["legacy_tiktok_id", 1],
            ["123456789012345", 0],
            ["GTM-FZ12345", 0]
          ]
        )
        for (const item of (yield* get("/v1/changes?entity=pixels")).body.data.items) {
          const detail = (yield* get(`/v1/changes/${item.id}`)).body.data
          assert.notProperty(detail.after ?? {}, "warnings")
          assert.notProperty(detail.before ?? {}, "warnings")
        }
        // Only the spec's rule refuses: a facebook id is 15 to 17 digits.
        const refused = yield* send(setup, "POST", "/v1/pixels", '{"pixel_type":"facebook","pixel_id":"fb_pixel_1"}')
        assert.deepStrictEqual([refused.status, refused.body.error.code], [422, "invalid_pixel_id"])
      })
    )
  }
)
