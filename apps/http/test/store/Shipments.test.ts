/**
 * Orders meet parcels through the store API in memory (`src/store/shipments`; docs/cod-loop.md): a store's courier
 * accounts (checked by the courier, sealed, shown by fingerprint only, deleted, refused while in use or with no secret
 * key), orders shipped through them (the parcel built from the order, every failure class in the envelope with the
 * order left as it was), their label, cancel and dispatch, the idempotency of each write, the orders list's
 * shipment filters and the webhook events they queue. Couriers: the sandbox, Ecotrack's loopback fake (DHD, whose
 * token check refuses a token it does not know, and which holds a parcel undispatched until it is dispatched),
 * Yalidine's loopback fake, and `pushco` (`ShipmentCouriers.ts`), a courier defined for these tests. The receiver of
 * courier push is `CourierHooks.test.ts`'s; processes and databases are `../shipments/`'s.
 */
import { assert, layer } from "@effect/vitest"
import { Egress } from "@tawsil/egress"
import { OrderStore } from "@tawsil/orders"
import { Secrets } from "@tawsil/secrets"
import { CourierAccount } from "@tawsil/shipments"
import { CourierPacer } from "@tawsil/shipping"
import { WebhookStore } from "@tawsil/webhooks"
import { DateTime, Duration, Effect, Layer, Redacted, Result } from "effect"
import { EcotrackFake, TOKEN } from "../../../../adapters/ecotrack/test/fake/EcotrackFake.ts"
import { YalidineFake } from "../../../../adapters/yalidine/test/fake/YalidineFake.ts"
import * as InMemory from "./InMemory.ts"
import * as Couriers from "./ShipmentCouriers.ts"

const { codeOf, createStore, key } = InMemory

/** A credential no answer may ever show. */
const CANARY = "canary-3f9d2b7e1a6c0e58-accounts"

const customer = {
  name: "Amina Benali",
  phone: "0555 12 34 56",
  wilaya_id: 16,
  commune: "Bab Ezzouar",
  address: "Cité 5, bâtiment 12"
}

/** The store API in memory over the sandbox, `pushco`, and DHD and Yalidine sent to their loopback fakes. */
const withFakes = Layer.unwrap(
  Effect.gen(function* () {
    const ecotrack = yield* EcotrackFake
    const yalidine = yield* YalidineFake
    const origins = Result.getOrThrow(
      Egress.parseOverrides(
        `https://platform.dhd-dz.com=${ecotrack.origin},https://api.yalidine.app=${yalidine.origin}`
      )
    )
    // The couriers' pace is not what these tests are about: their windows a thousandth as long (the pace itself is
    // `couriers/Documented.db.test.ts`'s).
    return InMemory.layer({ gateway: Couriers.gateway(origins, CourierPacer.layerMemoryScaled(0.001)) })
  })
).pipe(Layer.provideMerge(Layer.merge(EcotrackFake.layer({ tokens: [TOKEN, CANARY] }), YalidineFake.layer())))

/** A product with stock, and an order of two of it (`pending`, or confirmed unless told). */
const orderOf = (
  store: InMemory.Caller,
  options: { readonly customer?: Partial<typeof customer>; readonly status?: "pending" | "confirmed" } = {}
) =>
  Effect.gen(function* () {
    const product = (yield* store.write("POST", "/v1/products", { name: "Robe kabyle", price: 4500, stock: 10 })).body
      .data
    const created = yield* store.write("POST", "/v1/orders", {
      customer: { ...customer, ...options.customer },
      items: [{ product_id: product.id, quantity: 2 }],
      shipping_cost: 400
    })
    assert.strictEqual(created.status, 200, created.text)
    const id: number = created.body.data.id
    if (options.status !== "pending") {
      const confirmed = yield* store.write("PATCH", `/v1/orders/${id}`, { status: "confirmed" })
      assert.strictEqual(confirmed.body.data.status, "confirmed", confirmed.text)
    }
    return { id, productId: product.id as number, number: created.body.data.order_number as string }
  })

/** A courier account of the store; fails the test unless it is created. */
const accountOf = (store: InMemory.Caller, body: Record<string, unknown>) =>
  Effect.map(store.write("POST", "/v1/shipping/accounts", { label: "Compte", ...body }), (answer) => {
    assert.strictEqual(answer.status, 200, answer.text)
    return answer.body.data.id as number
  })

const pushcoAccount = (store: InMemory.Caller, token = "pushco-token-1") =>
  accountOf(store, { courier: "pushco", credentials: { token }, webhook_secret: Couriers.PUSH_SECRET })

const ship = (store: InMemory.Caller, orderId: number, body: unknown, idempotencyKey?: string) =>
  store.write("POST", `/v1/orders/${orderId}/shipment`, body, idempotencyKey)

const detailOf = (store: InMemory.Caller, orderId: number) =>
  Effect.map(store.get(`/v1/orders/${orderId}`), (answer) => answer.body.data)

/**
 * A product's stock as orders take and give it back (in memory the orders' twin of the catalogue holds it; through
 * `GET /v1/products` on a database, `../shipments/`).
 */
const stockOf = (productId: number) =>
  Effect.flatMap(OrderStore.MemoryCatalogue, (catalogue) =>
    Effect.map(catalogue.get(productId), (product) => product!.stock as number)
  )

/** The credentials' fingerprint as the account's view documents it: keyed by the store's secret key. */
const fingerprintOf = (credentials: Record<string, string>) =>
  Effect.flatMap(Secrets.Secrets, (secrets) =>
    Effect.orDie(secrets.fingerprint(Redacted.make(CourierAccount.canonical(credentials))))
  )

// --- the outbox --------------------------------------------------------------------------------------------------

// biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
type Json = any

/** Every webhook event queued so far, by store: its name and `data` (claimed from the memory outbox). */
const queued = new Map<number, Array<{ readonly subscription: number; readonly event: string; readonly data: Json }>>()

/**
 * The webhook events queued for the store so far, oldest first: delivered from the memory outbox as a receiver that
 * answers 2xx would take them (a subscription's next delivery is claimable once the one before is answered).
 */
const eventsOf = (storeId: number) =>
  Effect.gen(function* () {
    const store = yield* WebhookStore.WebhookStore
    while (true) {
      const token = `test-${Math.random()}`
      const claimed = yield* store.claim(10_000, Duration.hours(1), token)
      if (claimed.length === 0) break
      for (const delivery of [...claimed].sort((a, b) => a.id - b.id)) {
        const list = queued.get(delivery.storeId) ?? []
        list.push({
          subscription: delivery.subscriptionId,
          event: delivery.event,
          data: JSON.parse(delivery.payload).data
        })
        queued.set(delivery.storeId, list)
        yield* store.finishAttempt({
          deliveryId: delivery.id,
          token,
          attempt: {
            attempt: delivery.attempt,
            startedAt: DateTime.makeUnsafe(0),
            outcome: "succeeded",
            statusCode: 204,
            latencyMs: 1,
            error: null
          },
          status: "succeeded",
          retryInMillis: null
        })
      }
    }
    return queued.get(storeId) ?? []
  })

/** Subscribes the store to every order and shipment event. */
const subscribe = (store: InMemory.Caller) =>
  Effect.map(
    store.write("POST", "/v1/webhooks", {
      url: "https://hooks.example.com/tawsil",
      events: [
        "order.created",
        "order.confirmed",
        "order.shipped",
        "order.delivered",
        "order.returned",
        "order.cancelled",
        "shipment.updated"
      ]
    }),
    (answer) => {
      assert.strictEqual(answer.status, 200, answer.text)
      return answer.body.data.id as number
    }
  )

/**
 * Pushes `pushco` events for the account, signed, through the receiver; once acknowledged, runs the applier as its
 * loop would (it applies behind the answer) and checks they were applied.
 */
const pushcoPush = (accountId: number, events: ReadonlyArray<Couriers.PushcoEvent>) =>
  Effect.gen(function* () {
    const body = Couriers.pushcoBody(events)
    const answer = yield* InMemory.call("POST", `/v1/hooks/couriers/${accountId}`, {
      headers: Couriers.pushcoHeaders(body),
      bytes: new Uint8Array(Buffer.from(body))
    })
    if (answer.status === 200) {
      for (const trackingNumber of new Set(events.map((event) => event.tracking))) {
        yield* InMemory.pushesApplied(accountId, { trackingNumber })
      }
    }
    return answer
  })

const isoNow = (offsetSeconds = 0) => new Date(Date.now() + offsetSeconds * 1000).toISOString()

layer(withFakes, { excludeTestServices: true, timeout: "120 seconds" })("shipments (memory)", (it) => {
  // --- courier accounts ------------------------------------------------------------------------------------------

  it.effect(
    "an account shows its courier, label, fingerprint and dates, never a credential; list, replay, delete",
    () =>
      Effect.gen(function* () {
        const store = yield* createStore()
        const once = key()
        const body = {
          courier: "pushco",
          label: "Push Co Alger",
          credentials: { token: CANARY },
          webhook_secret: Couriers.PUSH_SECRET
        }
        const created = yield* store.write("POST", "/v1/shipping/accounts", body, once)
        assert.strictEqual(created.status, 200, created.text)
        const account = created.body.data
        assert.deepStrictEqual(
          { ...account, id: 0, created_at: "", updated_at: "" },
          {
            id: 0,
            courier: "pushco",
            label: "Push Co Alger",
            base_url: null,
            fingerprint: yield* fingerprintOf({ token: CANARY }),
            push: { supported: true, webhook_secret_set: true, url: `/v1/hooks/couriers/${account.id}` },
            created_at: "",
            updated_at: ""
          }
        )
        assert.match(account.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
        const replay = yield* store.write("POST", "/v1/shipping/accounts", body, once)
        assert.strictEqual(replay.headers.get("idempotency-replay"), "1")
        assert.strictEqual(replay.text, created.text)
        // An alias is read as its courier; a courier with no credentials has the fingerprint of none.
        const sandbox = yield* store.write("POST", "/v1/shipping/accounts", { courier: "TEST", label: "Essais" })
        assert.deepInclude(sandbox.body.data, { courier: "sandbox", fingerprint: yield* fingerprintOf({}) })
        assert.deepStrictEqual(sandbox.body.data.push, { supported: false, webhook_secret_set: false, url: null })

        const listed = yield* store.get("/v1/shipping/accounts")
        assert.deepStrictEqual(
          listed.body.data.items.map((item: { id: number }) => item.id),
          [account.id, sandbox.body.data.id]
        )
        assert.deepStrictEqual(listed.body.data.items[0], account)
        const other = yield* createStore()
        assert.deepStrictEqual((yield* other.get("/v1/shipping/accounts")).body.data.items, [])
        for (const text of [created.text, replay.text, listed.text]) {
          assert.notInclude(text, CANARY)
          assert.notInclude(text, Couriers.PUSH_SECRET)
        }

        const foreign = yield* other.write("DELETE", `/v1/shipping/accounts/${account.id}`)
        assert.deepStrictEqual(codeOf(foreign), [404, "not_found"])
        const deleted = yield* store.write("DELETE", `/v1/shipping/accounts/${account.id}`)
        assert.deepStrictEqual(deleted.body.data, { deleted: true, id: account.id })
        assert.deepStrictEqual(codeOf(yield* store.write("DELETE", `/v1/shipping/accounts/${account.id}`)), [
          404,
          "not_found"
        ])
        assert.deepStrictEqual(
          (yield* store.get("/v1/shipping/accounts")).body.data.items.map((item: { id: number }) => item.id),
          [sandbox.body.data.id]
        )
        for (const path of [
          "/v1/shipping/accounts/0",
          "/v1/shipping/accounts/abc",
          "/v1/shipping/accounts/99999999999"
        ]) {
          assert.include([400, 404], (yield* store.write("DELETE", path)).status, path)
        }
      })
  )

  it.effect("credentials are checked by the courier: refused ones answer 422 with its words and store nothing", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const fake = yield* EcotrackFake
      const checks = () => fake.requests.filter((request) => request.path === "/api/v1/validate/token").length
      const before = checks()
      const accepted = yield* store.write("POST", "/v1/shipping/accounts", {
        courier: "dhd",
        label: "DHD",
        credentials: { token: TOKEN }
      })
      assert.strictEqual(accepted.status, 200, accepted.text)
      assert.strictEqual(checks(), before + 1, "the courier's token check was asked")
      assert.strictEqual(accepted.body.data.fingerprint, yield* fingerprintOf({ token: TOKEN }))

      const refused: ReadonlyArray<readonly [Record<string, unknown>, number, string]> = [
        [{ courier: "dhd", credentials: { token: "unknown-token-0123456789" } }, 422, "credentials_rejected"],
        [{ courier: "pushco", credentials: { token: Couriers.REJECTED_TOKEN } }, 422, "credentials_rejected"],
        [{ courier: "pushco", credentials: { token: Couriers.DOWN_TOKEN } }, 502, "courier_unreachable"],
        [{ courier: "dhd", credentials: { token: "short" } }, 400, "invalid_credentials"],
        [{ courier: "dhd" }, 400, "invalid_credentials"],
        [{ courier: "dhd", credentials: { token: TOKEN, extra: "x" } }, 400, "invalid_credentials"],
        [{ courier: "la-poste", credentials: {} }, 400, "unknown_courier"],
        [{ courier: "dhd", credentials: { token: TOKEN }, base_url: "https://evil.example" }, 400, "blocked_egress"],
        [{ courier: "sandbox", webhook_secret: "a-secret-for-nothing" }, 400, "unsupported"],
        [{ courier: "pushco", credentials: { token: "t" }, webhook_secret: "not-pushco's-form" }, 400, "bad_request"]
      ]
      for (const [body, status, code] of refused) {
        const answer = yield* store.write("POST", "/v1/shipping/accounts", { label: "Refusé", ...body })
        assert.deepStrictEqual(codeOf(answer), [status, code], answer.text)
        assert.notInclude(answer.text, "unknown-token-0123456789")
        assert.notInclude(answer.text, "a-secret-for-nothing")
      }
      const rejected = yield* store.write("POST", "/v1/shipping/accounts", {
        courier: "dhd",
        label: "DHD",
        credentials: { token: "unknown-token-0123456789" }
      })
      assert.include(rejected.body.error.message, "dhd refused these credentials")
      assert.include(rejected.body.error.message, "INVALID_TOKEN", "the courier's own words")
      const webhookRefused = yield* store.write("POST", "/v1/shipping/accounts", {
        courier: "sandbox",
        label: "S",
        webhook_secret: "a-secret-for-nothing"
      })
      assert.include(webhookRefused.body.error.message, "sandbox does not push tracking")
      assert.deepStrictEqual(
        (yield* store.get("/v1/shipping/accounts")).body.data.items.map((item: { id: number }) => item.id),
        [accepted.body.data.id],
        "nothing refused was stored"
      )
    })
  )

  it.effect("refuses a bad account body with 400 bad_request naming the field", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [[], "Body must be a JSON object"],
        [{ courier: "sandbox" }, "label"],
        [{ courier: "sandbox", label: "" }, "label"],
        [{ courier: "sandbox", label: "x".repeat(81) }, "label"],
        [{ courier: "sandbox", label: "a\u0000b" }, "label"],
        [{ courier: "sandbox", label: "ok", credentials: "token" }, "credentials"],
        [{ courier: "sandbox", label: "ok", credentials: { token: 42 } }, "credentials"],
        [{ courier: "sandbox", label: "ok", owner: "me" }, "owner"],
        [{ courier: 7, label: "ok" }, "courier"]
      ]
      for (const [body, field] of cases) {
        const answer = yield* store.write("POST", "/v1/shipping/accounts", body)
        assert.deepStrictEqual(codeOf(answer), [400, "bad_request"], answer.text)
        assert.include(answer.body.error.message, field, JSON.stringify(body))
      }
      const broken = yield* InMemory.call("POST", "/v1/shipping/accounts", {
        token: store.token,
        key: key(),
        raw: '{"courier":"sandbox",'
      })
      assert.deepStrictEqual(codeOf(broken), [400, "bad_request"])
      assert.deepStrictEqual((yield* store.get("/v1/shipping/accounts")).body.data.items, [])
    })
  )

  it.effect("an account carrying parcels on their way is 409 account_in_use; deletable once they arrived", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const account = yield* pushcoAccount(store)
      const order = yield* orderOf(store)
      const shipped = yield* ship(store, order.id, { account_id: account })
      assert.strictEqual(shipped.status, 200, shipped.text)
      const inUse = yield* store.write("DELETE", `/v1/shipping/accounts/${account}`)
      assert.deepStrictEqual(codeOf(inUse), [409, "account_in_use"])
      assert.include(inUse.body.error.message, "1 parcel")
      const tracking = shipped.body.data.shipment.tracking_number
      const pushed = yield* pushcoPush(account, [
        { id: Couriers.eventId(), tracking, status: "delivered", at: isoNow() }
      ])
      assert.strictEqual(pushed.status, 200, pushed.text)
      assert.strictEqual((yield* detailOf(store, order.id)).status, "delivered")
      const deleted = yield* store.write("DELETE", `/v1/shipping/accounts/${account}`)
      assert.deepStrictEqual(deleted.body.data, { deleted: true, id: account })
    })
  )

  it.effect("accounts need shipping:read and shipping:write; keys minted through the API have neither", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const minted = yield* InMemory.apiKey(store)
      const list = yield* minted.get("/v1/shipping/accounts")
      assert.deepStrictEqual([list.status, list.body.error.message], [403, "Missing scope: shipping:read"])
      for (const [method, path] of [
        ["POST", "/v1/shipping/accounts"],
        ["DELETE", "/v1/shipping/accounts/1"]
      ] as const) {
        const answer = yield* minted.write(method, path, { courier: "sandbox", label: "S" })
        assert.deepStrictEqual([answer.status, answer.body.error.message], [403, "Missing scope: shipping:write"])
      }
      const other = yield* createStore()
      const reader = yield* InMemory.keyWithScopes(other.id, ["shipping:read"])
      assert.strictEqual((yield* reader.get("/v1/shipping/accounts")).status, 200)
      const refused = yield* reader.write("POST", "/v1/shipping/accounts", { courier: "sandbox", label: "S" })
      assert.deepStrictEqual([refused.status, refused.body.error.message], [403, "Missing scope: shipping:write"])
      const writer = yield* InMemory.keyWithScopes(other.id, ["shipping:write"])
      const created = yield* writer.write("POST", "/v1/shipping/accounts", { courier: "sandbox", label: "S" })
      assert.strictEqual(created.status, 200, created.text)
      assert.strictEqual((yield* writer.write("DELETE", `/v1/shipping/accounts/${created.body.data.id}`)).status, 200)
      assert.deepStrictEqual((yield* store.get("/v1/shipping/accounts")).body.data.items, [])
    })
  )

  // --- shipping an order -----------------------------------------------------------------------------------------

  it.effect("ships an order: the parcel is built from the order, the order is shipped and shows its shipment", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const fake = yield* EcotrackFake
      const account = yield* accountOf(store, { courier: "dhd", credentials: { token: TOKEN } })
      const order = yield* orderOf(store)
      const shipped = yield* ship(store, order.id, { account_id: account, notes: "Appeler avant" })
      assert.strictEqual(shipped.status, 200, shipped.text)
      const data = shipped.body.data
      assert.strictEqual(data.status, "shipped")
      const shipment = data.shipment
      assert.deepInclude(shipment, {
        courier: "dhd",
        account_id: account,
        status: "pending_pickup",
        dispatched: true,
        cod_status: null,
        label_url: `/v1/orders/${order.id}/shipment/label`
      })
      assert.match(shipment.tracking_number, /^ECT/)
      assert.deepStrictEqual(
        shipment.timeline.map((event: { kind: string; status: string; source: string }) => [
          event.kind,
          event.status,
          event.source
        ]),
        [["movement", "pending_pickup", "create"]]
      )
      // The detail is the ship answer's order, with its confirmation after its fields (docs/confirmation.md).
      const { confirmation, ...detail } = yield* detailOf(store, order.id)
      assert.deepStrictEqual(detail, data)
      assert.strictEqual(confirmation.state, null)
      // What DHD received: the order's recipient, its number as reference, the total as cash, its lines.
      const create = fake.requests.findLast((request) => request.path === "/api/v1/create/order")!
      const fields = { ...create.query, ...(create.body as Record<string, unknown>) }
      assert.deepInclude(fields, {
        reference: order.number,
        nom_client: "Amina Benali",
        telephone: "0555123456",
        commune: "Bab Ezzouar",
        code_wilaya: 16,
        adresse: "Cité 5, bâtiment 12",
        produit: "2x Robe kabyle",
        remarque: "Appeler avant"
      })
      assert.strictEqual(Number(fields.montant), 9400, "the order's total, shipping included")
      const summary = (yield* store.get("/v1/orders?courier=dhd")).body.data.items
      assert.deepStrictEqual(
        summary.map((item: { id: number; shipment: unknown }) => [item.id, item.shipment]),
        [[order.id, { courier: "dhd", tracking_number: shipment.tracking_number, status: "pending_pickup" }]]
      )
    })
  )

  it.effect("every refusal of a ship is in the envelope with its code, and leaves the order as it was", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const other = yield* createStore()
      const sandbox = yield* accountOf(store, { courier: "sandbox" })
      const dhd = yield* accountOf(store, { courier: "dhd", credentials: { token: TOKEN } })
      const pushco = yield* pushcoAccount(store)
      const foreignAccount = yield* accountOf(other, { courier: "sandbox" })
      const foreignOrder = yield* orderOf(other)
      const creates = Couriers.pushcoCalls.create
      const cases: ReadonlyArray<
        readonly [string, Parameters<typeof orderOf>[1], unknown, number, string, ((error: Json) => void)?]
      > = [
        ["not an object", {}, [1], 400, "bad_request"],
        ["an unknown field", {}, { account_id: sandbox, carrier: "x" }, 400, "bad_request"],
        ["no account", {}, {}, 400, "bad_request"],
        ["a bad delivery type", {}, { account_id: sandbox, delivery_type: "drone" }, 400, "bad_request"],
        ["an unknown account", {}, { account_id: 2_000_000_000 }, 404, "not_found"],
        ["another store's account", {}, { account_id: foreignAccount }, 404, "not_found"],
        ["a pending order", { status: "pending" }, { account_id: sandbox }, 409, "not_shippable"],
        [
          "a commune the wilaya does not have",
          { customer: { commune: "Bab El Oued", wilaya_id: 31 } },
          { account_id: sandbox },
          422,
          "unknown_commune",
          (error) => assert.include(error.message, "Bab El Oued")
        ],
        [
          "a commune that names two of the wilaya's",
          { customer: { commune: "Sidi", wilaya_id: 31 } },
          { account_id: sandbox },
          422,
          "unknown_commune",
          (error) =>
            assert.deepStrictEqual(
              error.suggestions.map((suggestion: { nameFr: string }) => suggestion.nameFr),
              ["Sidi Ben Yebka", "Sidi Chami"]
            )
        ],
        ["a landline", { customer: { phone: "021 23 45 67" } }, { account_id: sandbox }, 422, "invalid_phone"],
        ["a courier's refusal", { customer: { phone: "0500000422" } }, { account_id: sandbox }, 422, "courier_refused"],
        ["a courier down", { customer: { phone: "0500000502" } }, { account_id: sandbox }, 502, "courier_unreachable"],
        ["undispatched at a courier without it", {}, { account_id: sandbox, dispatch: false }, 400, "unsupported"],
        [
          "a wilaya the courier does not serve",
          { customer: { wilaya_id: 33, commune: "Illizi" } },
          { account_id: dhd },
          422,
          "commune_not_served"
        ]
      ]
      for (const [what, setup, body, status, code, check] of cases) {
        const order = yield* orderOf(store, setup)
        const before = yield* store.get(`/v1/orders/${order.id}`)
        const answer = yield* ship(store, order.id, body)
        assert.deepStrictEqual(codeOf(answer), [status, code], `${what}: ${answer.text}`)
        check?.(answer.body.error)
        const after = yield* store.get(`/v1/orders/${order.id}`)
        assert.strictEqual(
          after.text.replace(/"request_id":"[^"]+"/, ""),
          before.text.replace(/"request_id":"[^"]+"/, "")
        )
      }
      // Another store's order, an unknown one, a path that is no id.
      for (const path of [`/v1/orders/${foreignOrder.id}/shipment`, "/v1/orders/2000000000/shipment"]) {
        assert.deepStrictEqual(codeOf(yield* store.write("POST", path, { account_id: sandbox })), [404, "not_found"])
      }
      assert.deepStrictEqual(codeOf(yield* store.write("POST", "/v1/orders/abc/shipment", { account_id: sandbox })), [
        400,
        "bad_request"
      ])
      // Shipped once: a second ship is 409, and the courier was asked once.
      const order = yield* orderOf(store)
      const shipped = yield* ship(store, order.id, { account_id: pushco })
      assert.strictEqual(shipped.status, 200, shipped.text)
      const again = yield* ship(store, order.id, { account_id: pushco })
      assert.deepStrictEqual(codeOf(again), [409, "shipment_exists"])
      assert.strictEqual(
        (yield* detailOf(store, order.id)).shipment.tracking_number,
        shipped.body.data.shipment.tracking_number
      )
      assert.strictEqual(Couriers.pushcoCalls.create, creates + 1, "one parcel created, by the one ship that passed")
    })
  )

  it.effect("ship, dispatch and cancel are replayed byte for byte under their key, and reach the courier once", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const account = yield* pushcoAccount(store)
      const calls = { ...Couriers.pushcoCalls }
      const order = yield* orderOf(store)
      const shipKey = key()
      const body = { account_id: account, dispatch: false }
      const first = yield* ship(store, order.id, body, shipKey)
      assert.strictEqual(first.status, 200, first.text)
      const replay = yield* ship(store, order.id, body, shipKey)
      assert.strictEqual(replay.headers.get("idempotency-replay"), "1")
      assert.strictEqual(replay.text, first.text)
      const reused = yield* ship(store, order.id, { account_id: account }, shipKey)
      assert.deepStrictEqual(codeOf(reused), [422, "idempotency_key_reuse"])
      assert.strictEqual(Couriers.pushcoCalls.create, calls.create + 1)

      const dispatchKey = key()
      const dispatched = yield* store.write("POST", `/v1/orders/${order.id}/shipment/dispatch`, undefined, dispatchKey)
      assert.strictEqual(dispatched.status, 200, dispatched.text)
      const dispatchedAgain = yield* store.write(
        "POST",
        `/v1/orders/${order.id}/shipment/dispatch`,
        undefined,
        dispatchKey
      )
      assert.strictEqual(dispatchedAgain.text, dispatched.text)
      assert.strictEqual(dispatchedAgain.headers.get("idempotency-replay"), "1")
      assert.strictEqual(Couriers.pushcoCalls.dispatch, calls.dispatch + 1)

      const other = yield* orderOf(store)
      yield* ship(store, other.id, body)
      const cancelKey = key()
      const cancelled = yield* store.write("POST", `/v1/orders/${other.id}/shipment/cancel`, undefined, cancelKey)
      assert.strictEqual(cancelled.status, 200, cancelled.text)
      const cancelledAgain = yield* store.write("POST", `/v1/orders/${other.id}/shipment/cancel`, undefined, cancelKey)
      assert.strictEqual(cancelledAgain.text, cancelled.text)
      assert.strictEqual(cancelledAgain.headers.get("idempotency-replay"), "1")
      assert.strictEqual(Couriers.pushcoCalls.cancel, calls.cancel + 1)
      // A new key: the same answer again, without asking the courier (the parcel is cancelled already).
      const later = yield* store.write("POST", `/v1/orders/${other.id}/shipment/cancel`)
      assert.strictEqual(later.status, 200)
      assert.deepStrictEqual(later.body.data, cancelled.body.data)
      assert.strictEqual(Couriers.pushcoCalls.cancel, calls.cancel + 1)

      // A refusal is kept under its key too.
      const pending = yield* orderOf(store, { status: "pending" })
      const refusedKey = key()
      const refused = yield* ship(store, pending.id, { account_id: account }, refusedKey)
      assert.deepStrictEqual(codeOf(refused), [409, "not_shippable"])
      yield* store.write("PATCH", `/v1/orders/${pending.id}`, { status: "confirmed" })
      const refusedAgain = yield* ship(store, pending.id, { account_id: account }, refusedKey)
      assert.strictEqual(refusedAgain.text, refused.text)
      assert.strictEqual(Couriers.pushcoCalls.create, calls.create + 2)
    })
  )

  it.effect(
    "a courier that did not answer is not replayed: the ship is tried again, never answered in flight for good",
    () =>
      Effect.gen(function* () {
        const store = yield* createStore()
        const sandbox = yield* accountOf(store, { courier: "sandbox" })
        const order = yield* orderOf(store, { customer: { phone: "0500000502" } })
        const once = key()
        const first = yield* ship(store, order.id, { account_id: sandbox }, once)
        assert.deepStrictEqual(codeOf(first), [502, "courier_unreachable"])
        // The courier may have made the parcel: its create stays claimed (for its lease) rather than made twice.
        const second = yield* ship(store, order.id, { account_id: sandbox }, once)
        assert.deepStrictEqual(codeOf(second), [409, "parcel_pending"], second.text)
        assert.isNull(second.headers.get("idempotency-replay"))
        assert.isString(second.headers.get("retry-after"))
        // What says "retry later" is not the key's answer for good: the next try runs again.
        const third = yield* ship(store, order.id, { account_id: sandbox }, once)
        assert.isNull(third.headers.get("idempotency-replay"), third.text)
        assert.strictEqual((yield* detailOf(store, order.id)).status, "confirmed")
      })
  )

  it.effect("the label is the courier's PDF, served through our URL", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const pushco = yield* pushcoAccount(store)
      const sandbox = yield* accountOf(store, { courier: "sandbox" })
      const dhd = yield* accountOf(store, { courier: "dhd", credentials: { token: TOKEN } })
      const fake = yield* EcotrackFake
      for (const account of [pushco, sandbox, dhd]) {
        const order = yield* orderOf(store)
        const shipped = yield* ship(store, order.id, { account_id: account })
        const tracking = shipped.body.data.shipment.tracking_number
        const label = yield* InMemory.call("GET", shipped.body.data.shipment.label_url, { token: store.token })
        assert.strictEqual(label.status, 200, label.text)
        assert.strictEqual(label.headers.get("content-type"), "application/pdf")
        assert.strictEqual(Buffer.from(label.bytes.subarray(0, 5)).toString("latin1"), "%PDF-")
        if (account === pushco) assert.deepStrictEqual(label.bytes, Couriers.labelOf(tracking))
        if (account === sandbox) assert.include(Buffer.from(label.bytes).toString("latin1"), tracking)
        if (account === dhd) {
          const asked = fake.requests.findLast((request) => request.path === "/api/v1/get/order/label")
          assert.strictEqual(asked?.query.tracking, tracking)
        }
      }
      const unshipped = yield* orderOf(store)
      assert.deepStrictEqual(codeOf(yield* store.get(`/v1/orders/${unshipped.id}/shipment/label`)), [
        404,
        "no_shipment"
      ])
      assert.deepStrictEqual(codeOf(yield* store.get("/v1/orders/2000000000/shipment/label")), [404, "not_found"])
      const other = yield* createStore()
      const foreign = yield* orderOf(other)
      yield* ship(other, foreign.id, { account_id: yield* accountOf(other, { courier: "sandbox" }) })
      assert.deepStrictEqual(codeOf(yield* store.get(`/v1/orders/${foreign.id}/shipment/label`)), [404, "not_found"])
    })
  )

  it.effect("cancel: the parcel is cancelled at the courier, the order is cancelled and its stock comes back", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      yield* subscribe(store)
      const sandbox = yield* accountOf(store, { courier: "sandbox" })
      const order = yield* orderOf(store)
      assert.strictEqual(yield* stockOf(order.productId), 8, "confirmed: the two items are taken")
      const shipped = yield* ship(store, order.id, { account_id: sandbox })
      assert.strictEqual(shipped.status, 200, shipped.text)
      assert.strictEqual(yield* stockOf(order.productId), 8, "shipped: still taken")
      const cancelled = yield* store.write("POST", `/v1/orders/${order.id}/shipment/cancel`)
      assert.strictEqual(cancelled.status, 200, cancelled.text)
      assert.strictEqual(cancelled.body.data.status, "cancelled")
      assert.deepInclude(cancelled.body.data.shipment, { status: "cancelled", raw_status: "cancelled" })
      assert.deepStrictEqual(
        cancelled.body.data.shipment.timeline.map((event: { status: string; source: string }) => [
          event.status,
          event.source
        ]),
        [
          ["created", "create"],
          ["cancelled", "cancel"]
        ]
      )
      assert.strictEqual(yield* stockOf(order.productId), 10, "cancelled: the two items are back")
      const events = (yield* eventsOf(store.id)).filter((event) => event.data !== undefined)
      const cancelledEvent = events.find((event) => event.event === "order.cancelled")
      assert.isDefined(cancelledEvent, JSON.stringify(events.map((event) => event.event)))
      const data = cancelledEvent!.data
      assert.deepInclude(data, { id: order.id, status: "cancelled" })
      assert.strictEqual(data.shipment.status, "cancelled")
      assert.deepStrictEqual(
        events.filter((event) => event.data.order_id === order.id).map((event) => [event.event, event.data.status]),
        [
          ["shipment.updated", "created"],
          ["shipment.updated", "cancelled"]
        ]
      )
      // The courier confirmed the parcel never left: a merchant still cannot mark a shipped order cancelled by hand.
      const otherOrder = yield* orderOf(store)
      yield* ship(store, otherOrder.id, { account_id: sandbox })
      assert.deepStrictEqual(codeOf(yield* store.write("POST", `/v1/orders/${otherOrder.id}/cancel`)), [
        400,
        "bad_request"
      ])
      assert.strictEqual((yield* detailOf(store, otherOrder.id)).status, "shipped")
    })
  )

  it.effect(
    "a cancel the courier refuses (409), of a delivered parcel (409) or of no parcel (404) changes nothing",
    () =>
      Effect.gen(function* () {
        const store = yield* createStore()
        const dhd = yield* accountOf(store, { courier: "dhd", credentials: { token: TOKEN } })
        const pushco = yield* pushcoAccount(store)
        // Ecotrack validates every parcel it creates: its cancel refuses them.
        const validated = yield* orderOf(store)
        yield* ship(store, validated.id, { account_id: dhd })
        const before = yield* detailOf(store, validated.id)
        const refused = yield* store.write("POST", `/v1/orders/${validated.id}/shipment/cancel`)
        assert.deepStrictEqual(codeOf(refused), [409, "not_cancellable"], refused.text)
        assert.include(refused.body.error.message, "10001")
        assert.deepStrictEqual(yield* detailOf(store, validated.id), before)

        const delivered = yield* orderOf(store)
        const shipped = yield* ship(store, delivered.id, { account_id: pushco, dispatch: false })
        const tracking = shipped.body.data.shipment.tracking_number
        yield* pushcoPush(pushco, [{ id: Couriers.eventId(), tracking, status: "delivered", at: isoNow() }])
        const arrived = yield* detailOf(store, delivered.id)
        assert.strictEqual(arrived.status, "delivered")
        const cancels = Couriers.pushcoCalls.cancel
        const late = yield* store.write("POST", `/v1/orders/${delivered.id}/shipment/cancel`)
        assert.deepStrictEqual(codeOf(late), [409, "not_cancellable"])
        assert.strictEqual(Couriers.pushcoCalls.cancel, cancels, "the courier was not asked")
        assert.deepStrictEqual(yield* detailOf(store, delivered.id), arrived)

        const unshipped = yield* orderOf(store)
        for (const action of ["cancel", "dispatch"]) {
          const answer = yield* store.write("POST", `/v1/orders/${unshipped.id}/shipment/${action}`)
          assert.deepStrictEqual(codeOf(answer), [404, "no_shipment"], action)
        }
        assert.strictEqual((yield* detailOf(store, unshipped.id)).status, "confirmed")
      })
  )

  it.effect("dispatch: an undispatched parcel keeps its order processing and cancellable until it is handed over", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      yield* subscribe(store)
      const account = yield* pushcoAccount(store)
      const kept = yield* orderOf(store)
      const created = yield* ship(store, kept.id, { account_id: account, dispatch: false })
      assert.strictEqual(created.status, 200, created.text)
      assert.strictEqual(created.body.data.status, "processing")
      assert.deepInclude(created.body.data.shipment, { dispatched: false, status: "created" })
      const tracking = created.body.data.shipment.tracking_number
      assert.strictEqual(Couriers.parcels.get(tracking)?.dispatched, false)
      const label = yield* InMemory.call("GET", `/v1/orders/${kept.id}/shipment/label`, { token: store.token })
      assert.strictEqual(label.status, 200, "the label is printed before the parcel is handed over")
      const cancelled = yield* store.write("POST", `/v1/orders/${kept.id}/shipment/cancel`)
      assert.strictEqual(cancelled.status, 200, cancelled.text)
      assert.strictEqual(cancelled.body.data.status, "cancelled")
      assert.strictEqual(Couriers.parcels.get(tracking)?.cancelled, true)
      assert.deepStrictEqual(codeOf(yield* store.write("POST", `/v1/orders/${kept.id}/shipment/dispatch`)), [
        422,
        "courier_refused"
      ])

      const sent = yield* orderOf(store)
      yield* ship(store, sent.id, { account_id: account, dispatch: false })
      const dispatched = yield* store.write("POST", `/v1/orders/${sent.id}/shipment/dispatch`)
      assert.strictEqual(dispatched.status, 200, dispatched.text)
      assert.strictEqual(dispatched.body.data.status, "shipped")
      assert.deepInclude(dispatched.body.data.shipment, { dispatched: true, status: "pending_pickup" })
      assert.deepStrictEqual(
        dispatched.body.data.shipment.timeline.map((event: { status: string; source: string }) => [
          event.status,
          event.source
        ]),
        [
          ["created", "create"],
          ["pending_pickup", "dispatch"]
        ]
      )
      assert.deepStrictEqual(codeOf(yield* store.write("POST", `/v1/orders/${sent.id}/shipment/dispatch`)), [
        409,
        "already_dispatched"
      ])
      const tooLate = yield* store.write("POST", `/v1/orders/${sent.id}/shipment/cancel`)
      assert.deepStrictEqual(codeOf(tooLate), [409, "not_cancellable"])
      assert.strictEqual((yield* detailOf(store, sent.id)).status, "shipped")
      const names = (yield* eventsOf(store.id))
        .filter((event) => {
          const data = event.data
          return data.id === sent.id || data.order_id === sent.id
        })
        .map((event) => event.event)
      assert.deepStrictEqual(names, [
        "order.created",
        "order.confirmed",
        "shipment.updated",
        "order.shipped",
        "shipment.updated"
      ])
    })
  )

  it.effect(
    "DHD (Ecotrack) holds a parcel undispatched: the order stays processing, cancellable until dispatched",
    () =>
      Effect.gen(function* () {
        const store = yield* createStore()
        const fake = yield* EcotrackFake
        const dhd = yield* accountOf(store, { courier: "dhd", credentials: { token: TOKEN } })
        const validations = () => fake.requests.filter((request) => request.path === "/api/v1/valid/order").length

        const kept = yield* orderOf(store)
        const before = validations()
        const held = yield* ship(store, kept.id, { account_id: dhd, dispatch: false })
        assert.strictEqual(held.status, 200, held.text)
        assert.strictEqual(held.body.data.status, "processing")
        assert.deepInclude(held.body.data.shipment, { dispatched: false, status: "created" })
        const tracking = held.body.data.shipment.tracking_number
        assert.strictEqual(validations(), before, "created at DHD, not validated")
        assert.strictEqual(fake.parcels.get(tracking)?.validated, false)
        const cancelled = yield* store.write("POST", `/v1/orders/${kept.id}/shipment/cancel`)
        assert.strictEqual(cancelled.status, 200, cancelled.text)
        assert.deepStrictEqual(
          [cancelled.body.data.status, cancelled.body.data.shipment.status],
          ["cancelled", "cancelled"]
        )
        assert.isTrue(
          fake.requests.some(
            (request) => request.path === "/api/v1/delete/order" && request.query.tracking === tracking
          ),
          "deleted at DHD"
        )

        const sent = yield* orderOf(store)
        const sentTracking = (yield* ship(store, sent.id, { account_id: dhd, dispatch: false })).body.data.shipment
          .tracking_number
        const dispatched = yield* store.write("POST", `/v1/orders/${sent.id}/shipment/dispatch`)
        assert.strictEqual(dispatched.status, 200, dispatched.text)
        assert.strictEqual(dispatched.body.data.status, "shipped")
        assert.deepInclude(dispatched.body.data.shipment, { dispatched: true })
        assert.strictEqual(fake.parcels.get(sentTracking)?.validated, true, "validated at DHD by the dispatch")
        const refused = yield* store.write("POST", `/v1/orders/${sent.id}/shipment/cancel`)
        assert.deepStrictEqual(codeOf(refused), [409, "not_cancellable"])
        assert.strictEqual((yield* detailOf(store, sent.id)).status, "shipped")
      })
  )

  it.effect("GET /v1/orders filters by courier and shipment status; the detail and the list show the shipment", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const pushco = yield* pushcoAccount(store)
      const sandbox = yield* accountOf(store, { courier: "sandbox" })
      const a = yield* orderOf(store)
      const b = yield* orderOf(store)
      const c = yield* orderOf(store)
      const none = yield* orderOf(store)
      yield* ship(store, a.id, { account_id: pushco })
      const bShipped = yield* ship(store, b.id, { account_id: pushco })
      yield* ship(store, c.id, { account_id: sandbox })
      yield* pushcoPush(pushco, [
        { tracking: bShipped.body.data.shipment.tracking_number, status: "out", at: isoNow() }
      ])
      const ids = (query: string) =>
        Effect.map(store.get(`/v1/orders${query}`), (answer) => {
          assert.strictEqual(answer.status, 200, answer.text)
          return answer.body.data.items.map((item: { id: number }) => item.id).sort((x: number, y: number) => x - y)
        })
      assert.deepStrictEqual(yield* ids("?courier=pushco"), [a.id, b.id])
      assert.deepStrictEqual(yield* ids("?courier=PUSHCO"), [a.id, b.id])
      assert.deepStrictEqual(yield* ids("?courier=sandbox"), [c.id])
      assert.deepStrictEqual(yield* ids("?shipment_status=out_for_delivery"), [b.id])
      assert.deepStrictEqual(yield* ids("?courier=pushco&shipment_status=pending_pickup"), [a.id])
      assert.deepStrictEqual(yield* ids("?courier=sandbox&shipment_status=out_for_delivery"), [])
      assert.deepStrictEqual(yield* ids("?courier=yalidine"), [])
      assert.deepStrictEqual(
        yield* ids("?shipment_status=lost"),
        [a.id, b.id, c.id, none.id],
        "an unknown status is ignored"
      )
      assert.deepStrictEqual(yield* ids("?status=shipped&courier=pushco"), [a.id, b.id])
      for (const query of ["?courier=%00", "?courier=%F0%9F%93%A6", `?courier=${"x".repeat(2000)}`]) {
        assert.deepStrictEqual(yield* ids(query), [], query)
      }
      const listed = (yield* store.get(`/v1/orders?courier=pushco&shipment_status=out_for_delivery`)).body.data.items[0]
      assert.deepStrictEqual(listed.shipment, {
        courier: "pushco",
        tracking_number: bShipped.body.data.shipment.tracking_number,
        status: "out_for_delivery"
      })
      assert.isNull(
        (yield* store.get(`/v1/orders?status=confirmed`)).body.data.items.find(
          (item: { id: number }) => item.id === none.id
        ).shipment
      )
    })
  )

  it.effect("order.shipped carries the shipment; shipment.updated tells each change; both subscribable", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const all = yield* subscribe(store)
      const narrow = yield* store.write("POST", "/v1/webhooks", {
        url: "https://hooks.example.com/parcels",
        events: ["shipment.updated"]
      })
      assert.strictEqual(narrow.status, 200, narrow.text)
      assert.deepStrictEqual(narrow.body.data.events, ["shipment.updated"])
      const account = yield* pushcoAccount(store)
      const order = yield* orderOf(store)
      const shipped = yield* ship(store, order.id, { account_id: account })
      const tracking = shipped.body.data.shipment.tracking_number
      yield* pushcoPush(account, [{ id: Couriers.eventId(), tracking, status: "out", at: isoNow(1) }])
      yield* pushcoPush(account, [
        { id: Couriers.eventId(), tracking, status: "delivered", at: isoNow(2), reason: "Remis en main propre" }
      ])
      yield* pushcoPush(account, [{ id: Couriers.eventId(), tracking, status: "cash_collected", at: isoNow(3) }])

      const deliveries = (hook: number) =>
        Effect.map(store.get(`/v1/webhooks/${hook}/deliveries`), (answer) =>
          answer.body.data.items.map((delivery: { event: string }) => delivery.event).reverse()
        )
      assert.deepStrictEqual(yield* deliveries(all), [
        "order.created",
        "order.confirmed",
        "order.shipped",
        "shipment.updated",
        "shipment.updated",
        "shipment.updated",
        "order.delivered",
        "shipment.updated"
      ])
      assert.deepStrictEqual(yield* deliveries(narrow.body.data.id), [
        "shipment.updated",
        "shipment.updated",
        "shipment.updated",
        "shipment.updated"
      ])

      const bodies = (yield* eventsOf(store.id)).filter((event) => {
        const data = event.data
        return data.id === order.id || data.order_id === order.id
      })
      const shippedEvent = bodies.find((event) => event.event === "order.shipped")!.data
      assert.deepInclude(shippedEvent, { id: order.id, status: "shipped" })
      assert.deepInclude(shippedEvent.shipment, { courier: "pushco", tracking_number: tracking, account_id: account })
      const updates = bodies.filter((event) => event.event === "shipment.updated")
      // Two subscriptions: each update once to each, the same event, in order.
      assert.strictEqual(updates.length, 8)
      const distinct = updates.filter((event) => event.subscription === all).map((event) => event.data)
      assert.deepStrictEqual(
        updates.filter((event) => event.subscription === narrow.body.data.id).map((event) => event.data),
        distinct
      )
      assert.deepStrictEqual(
        distinct.map((data) => [data.previous_status, data.status, data.order_status, data.cod_status]),
        [
          [null, "pending_pickup", "shipped", null],
          ["pending_pickup", "out_for_delivery", "shipped", null],
          ["out_for_delivery", "delivered", "delivered", null],
          ["delivered", "delivered", "delivered", "collected"]
        ]
      )
      assert.deepInclude(distinct[2], {
        order_id: order.id,
        order_number: order.number,
        courier: "pushco",
        tracking_number: tracking,
        raw_status: "delivered",
        reason: "Remis en main propre"
      })
      // The order's own format for times (Algiers time).
      assert.match(distinct[2]!.at as string, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
      const delivered = bodies.find((event) => event.event === "order.delivered")!.data
      assert.deepInclude(delivered.shipment, { status: "delivered" })
    })
  )
})

layer(InMemory.layer({ secrets: Secrets.layer(undefined) }), { excludeTestServices: true })(
  "shipments with no secret key (memory)",
  (it) => {
    it.effect("a courier account is 503 unavailable naming TAWSIL_SECRET_KEY, and nothing is stored", () =>
      Effect.gen(function* () {
        const store = yield* createStore()
        for (const body of [
          { courier: "sandbox", label: "Essais" },
          { courier: "testco", label: "Test Co", credentials: { token: CANARY } }
        ]) {
          const answer = yield* store.write("POST", "/v1/shipping/accounts", body)
          assert.deepStrictEqual(codeOf(answer), [503, "unavailable"], answer.text)
          assert.include(answer.body.error.message, "TAWSIL_SECRET_KEY")
          assert.notInclude(answer.text, CANARY)
        }
        const listed = yield* store.get("/v1/shipping/accounts")
        assert.deepStrictEqual([listed.status, listed.body.data.items], [200, []])
        // The rest of the store works without a key.
        const order = yield* orderOf(store)
        assert.deepStrictEqual(codeOf(yield* ship(store, order.id, { account_id: 1 })), [404, "not_found"])
        assert.strictEqual((yield* detailOf(store, order.id)).status, "confirmed")
      })
    )
  }
)
