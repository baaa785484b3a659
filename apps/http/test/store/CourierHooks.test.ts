/**
 * The receiver of courier push through the store API in memory (`src/store/courier-hooks`; docs/cod-loop.md, "Push"):
 * `POST` and `GET /v1/hooks/couriers/{account_id}`, authenticated by the courier's signature alone. For `pushco` (a
 * courier defined in `ShipmentCouriers.ts`: timestamped HMAC, a GET challenge) and the three platforms that push,
 * each shipped through its loopback fake and pushed to with its fake pusher's own code: the Yalidine engine (its CRC
 * challenge, `X-YALIDINE-SIGNATURE`), ZR Express (Svix signatures, stale ones refused) and Maystro (twice base64, its
 * secret header). Events recorded once, acknowledged, then applied to their order behind the answer (the applier run
 * where its loop would wake: `InMemory.pushesApplied`), a repeat acknowledged and changing nothing, an event that overtakes our own create
 * applied when the shipment is attached; every refusal (404 unknown account, 401
 * bad, missing or stale signature, 400 malformed) changes nothing and echoes nothing (413 over 1 MB is the
 * listener's: over a socket, in `../shipments/`); and fast-check's hostile requests (`../PushRequests.ts`: bytes with
 * NUL and control characters, deep nesting, huge numbers, wrong headers, signed garbage): never a 5xx, nothing
 * recorded from a refused request, nothing echoed. The same receiver over a socket, and in an app process killed
 * mid-burst, is `../shipments/`'s.
 */
import { randomBytes } from "node:crypto"
import { assert, layer } from "@effect/vitest"
import { Egress } from "@tawsil/egress"
import { TrackingStore } from "@tawsil/shipments"
import { Effect, Layer, Result } from "effect"
import fc from "fast-check"
import { KEY as MAYSTRO_KEY, MaystroFake } from "../../../../adapters/maystro/test/fake/MaystroFake.ts"
import * as MaystroPusher from "../../../../adapters/maystro/test/fake/MaystroPusher.ts"
import { API_ID, API_TOKEN, YalidineFake } from "../../../../adapters/yalidine/test/fake/YalidineFake.ts"
import * as YalidinePusher from "../../../../adapters/yalidine/test/fake/YalidinePusher.ts"
import {
  ACCOUNT as ZR_ACCOUNT,
  ZrExpressNewFake
} from "../../../../adapters/zrexpress-new/test/fake/ZrExpressNewFake.ts"
import * as ZrExpressPusher from "../../../../adapters/zrexpress-new/test/fake/ZrExpressPusher.ts"
import * as PushRequests from "../PushRequests.ts"
import * as InMemory from "./InMemory.ts"
import * as Couriers from "./ShipmentCouriers.ts"

const { codeOf, createStore } = InMemory

/** Hostile requests sent in memory; `../shipments/` sends the first of them over sockets. */
const FUZZ_RUNS = 1_000

const YALIDINE_SECRET = "yal-webhook-secret-7c1e9a40d2b8"

/** The store API in memory over `pushco` and Yalidine's loopback fake. */
/** The store API in memory over `pushco` and the loopback fakes of the three platforms that push. */
const withFakes = Layer.unwrap(
  Effect.gen(function* () {
    const yalidine = yield* YalidineFake
    const zr = yield* ZrExpressNewFake
    const maystro = yield* MaystroFake
    const origins = Result.getOrThrow(
      Egress.parseOverrides(
        `https://api.yalidine.app=${yalidine.origin},https://api.zrexpress.app=${zr.origin},` +
          `https://backend.maystro-delivery.com=${maystro.origin}`
      )
    )
    return InMemory.layer({ gateway: Couriers.gateway(origins) })
  })
).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      // The fake's fixed windows open with its first request, ours with our first: the fake is told to count loosely.
      YalidineFake.layer({ accounts: [{ apiId: API_ID, apiToken: API_TOKEN, quotas: { second: 50, minute: 500 } }] }),
      ZrExpressNewFake.layer(),
      MaystroFake.layer()
    )
  )
)

let customers = 0
const customer = { name: "Amina Benali", phone: "0555123456", wilaya_id: 16, commune: "Bab Ezzouar", address: "Cité 5" }

/** A store with a shipped order through a new account of `courier`; the order's id and tracking number. */
const shippedThrough = (store: InMemory.Caller, account: Record<string, unknown>) =>
  Effect.gen(function* () {
    const created = yield* store.write("POST", "/v1/shipping/accounts", { label: "Compte", ...account })
    assert.strictEqual(created.status, 200, created.text)
    const product = (yield* store.write("POST", "/v1/products", { name: "Robe", price: 3000, stock: 50 })).body.data
    // A customer of its own: Maystro refuses a second order of one customer in a day.
    const order = (yield* store.write("POST", "/v1/orders", {
      customer: { ...customer, name: `${customer.name} ${++customers}` },
      items: [{ product_id: product.id, quantity: 1 }]
    })).body.data
    yield* store.write("PATCH", `/v1/orders/${order.id}`, { status: "confirmed" })
    // Yalidine prices and routes by the wilaya parcels leave from: the ship names it.
    const shipped = yield* store.write("POST", `/v1/orders/${order.id}/shipment`, {
      account_id: created.body.data.id,
      from_wilaya: 16
    })
    assert.strictEqual(shipped.status, 200, shipped.text)
    return {
      accountId: created.body.data.id as number,
      orderId: order.id as number,
      tracking: shipped.body.data.shipment.tracking_number as string
    }
  })

const pushcoAccount = {
  courier: "pushco",
  credentials: { token: "pushco-token" },
  webhook_secret: Couriers.PUSH_SECRET
}
const yalidineAccount = {
  courier: "yalidine",
  credentials: { apiId: API_ID, apiToken: API_TOKEN },
  webhook_secret: YALIDINE_SECRET
}

const hook = (accountId: number) => `/v1/hooks/couriers/${accountId}`

/** A POST to the receiver with exactly these bytes and headers. */
const post = (accountId: number | string, bytes: Uint8Array | string, headers: Record<string, string> = {}) =>
  InMemory.call("POST", `/v1/hooks/couriers/${accountId}`, {
    headers,
    bytes: typeof bytes === "string" ? new Uint8Array(Buffer.from(bytes, "utf8")) : bytes
  })

const pushco = (accountId: number, events: ReadonlyArray<Couriers.PushcoEvent>, at?: number) => {
  const body = Couriers.pushcoBody(events)
  return post(accountId, body, Couriers.pushcoHeaders(body, Couriers.PUSH_SECRET, at))
}

const isoIn = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString()

const detailOf = (store: InMemory.Caller, orderId: number) =>
  Effect.map(store.get(`/v1/orders/${orderId}`), (answer) => answer.body.data)

/** The account's pushed events waiting for a parcel of that tracking number: those not applied to any order. */
const waiting = (accountId: number, trackingNumber: string) =>
  Effect.flatMap(TrackingStore.TrackingStore, (tracking) =>
    tracking.pendingPushed(accountId, { trackingNumber, courierReference: null, reference: `none-${trackingNumber}` })
  )

layer(withFakes, { excludeTestServices: true, timeout: "120 seconds" })("courier push (memory)", (it) => {
  it.effect("pushco: a challenge is answered; events are recorded once, applied, and a repeat changes nothing", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const { accountId, orderId, tracking } = yield* shippedThrough(store, pushcoAccount)
      const challenge = yield* InMemory.call("GET", `${hook(accountId)}?challenge=Zx81`)
      assert.strictEqual(challenge.status, 200, challenge.text)
      assert.strictEqual(challenge.text, '{"challenge":"Zx81"}')
      assert.strictEqual(challenge.headers.get("content-type"), "application/json")

      const events: ReadonlyArray<Couriers.PushcoEvent> = [
        { id: Couriers.eventId(), tracking, status: "picked", at: isoIn(1) },
        { id: Couriers.eventId(), tracking, status: "failed", at: isoIn(2), reason: "Client absent" },
        { tracking, status: "out", at: isoIn(3) },
        // Unreadable: no status. Left out and counted, the rest accepted.
        { id: Couriers.eventId(), tracking, status: "", at: isoIn(4) }
      ]
      const first = yield* pushco(accountId, events)
      assert.strictEqual(first.status, 200, first.text)
      assert.deepStrictEqual(JSON.parse(first.text), { received: 3, recorded: 3 })
      // Acknowledged once recorded; applied behind the answer.
      yield* InMemory.pushesApplied(accountId, { trackingNumber: tracking })
      const after = yield* detailOf(store, orderId)
      assert.deepInclude(after.shipment, { status: "out_for_delivery", raw_status: "out", reason: null })
      assert.deepStrictEqual(
        after.shipment.timeline.map((event: { status: string; source: string; reason: string | null }) => [
          event.status,
          event.source,
          event.reason
        ]),
        [
          ["pending_pickup", "create", null],
          ["picked_up", "push", null],
          ["failed_attempt", "push", "Client absent"],
          ["out_for_delivery", "push", null]
        ]
      )
      // The same request again (a courier's retry), and the same events in another batch: acknowledged, nothing new.
      const replay = yield* pushco(accountId, events)
      assert.deepStrictEqual([replay.status, JSON.parse(replay.text)], [200, { received: 3, recorded: 0 }])
      const again = yield* pushco(accountId, [events[1]!, events[2]!])
      assert.deepStrictEqual(JSON.parse(again.text), { received: 2, recorded: 0 })
      assert.deepStrictEqual(yield* detailOf(store, orderId), after)

      // An older event only joins the timeline; a newer one moves the order.
      yield* pushco(accountId, [{ id: Couriers.eventId(), tracking, status: "transit", at: isoIn(-3600) }])
      yield* InMemory.pushesApplied(accountId, { trackingNumber: tracking })
      const late = yield* detailOf(store, orderId)
      assert.strictEqual(late.shipment.status, "out_for_delivery")
      assert.strictEqual(late.shipment.timeline.length, 5)
      yield* pushco(accountId, [{ id: Couriers.eventId(), tracking, status: "delivered", at: isoIn(5) }])
      yield* InMemory.pushesApplied(accountId, { trackingNumber: tracking })
      const delivered = yield* detailOf(store, orderId)
      assert.deepStrictEqual([delivered.status, delivered.shipment.status], ["delivered", "delivered"])
    })
  )

  it.effect("an event that overtakes our own create waits, and is applied when the shipment is attached", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const first = yield* shippedThrough(store, pushcoAccount)
      // pushco numbers its parcels in order: the next one is known before it is created.
      const next = `PC${String(Number(first.tracking.slice(2)) + 1).padStart(8, "0")}`
      const early = yield* pushco(first.accountId, [
        { id: Couriers.eventId(), tracking: next, status: "picked", at: isoIn(5) }
      ])
      assert.deepStrictEqual(JSON.parse(early.text), { received: 1, recorded: 1 })
      assert.strictEqual((yield* waiting(first.accountId, next)).length, 1)
      const product = (yield* store.write("POST", "/v1/products", { name: "Foulard", price: 900, stock: 5 })).body.data
      const order = (yield* store.write("POST", "/v1/orders", {
        customer,
        items: [{ product_id: product.id, quantity: 1 }]
      })).body.data
      yield* store.write("PATCH", `/v1/orders/${order.id}`, { status: "confirmed" })
      const shipped = yield* store.write("POST", `/v1/orders/${order.id}/shipment`, { account_id: first.accountId })
      assert.strictEqual(shipped.body.data.shipment.tracking_number, next)
      assert.strictEqual(shipped.body.data.shipment.status, "picked_up", "the ship answers the order caught up")
      assert.strictEqual((yield* waiting(first.accountId, next)).length, 0)
    })
  )

  it.effect("the Yalidine engine: its CRC challenge, X-YALIDINE-SIGNATURE, status and payment events", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const { accountId, orderId, tracking } = yield* shippedThrough(store, yalidineAccount)
      const token = randomBytes(24).toString("hex")
      const challenge = yield* InMemory.call("GET", `${hook(accountId)}?subscribe&crc_token=${token}`)
      assert.strictEqual(challenge.status, 200, challenge.text)
      assert.deepStrictEqual(JSON.parse(challenge.text), { crc_token: token })
      for (const query of [
        "?subscribe",
        `?crc_token=${token}`,
        "?subscribe&crc_token=",
        "?subscribe&crc_token=a%3Cb"
      ]) {
        const refused = yield* InMemory.call("GET", `${hook(accountId)}${query}`)
        assert.deepStrictEqual(codeOf(refused), [400, "bad_request"], query)
      }

      const later = Date.now() + 5_000
      const statuses = YalidinePusher.bodyOf("parcel_status_updated", [
        YalidinePusher.statusUpdated(tracking, "Ramassé", { at: later }),
        YalidinePusher.statusUpdated(tracking, "Sorti en livraison", { at: later + 60_000 }),
        YalidinePusher.statusUpdated(tracking, "Livré", { at: later + 120_000 })
      ])
      const unsigned = yield* post(accountId, statuses, { "content-type": "application/json" })
      assert.deepStrictEqual(codeOf(unsigned), [401, "invalid_signature"])
      const forged = yield* post(accountId, statuses, YalidinePusher.sign(statuses, "another-secret-123"))
      assert.deepStrictEqual(codeOf(forged), [401, "invalid_signature"])
      assert.strictEqual((yield* detailOf(store, orderId)).status, "shipped", "nothing applied")

      const accepted = yield* post(accountId, statuses, {
        "content-type": "application/json",
        ...YalidinePusher.sign(statuses, YALIDINE_SECRET)
      })
      assert.deepStrictEqual([accepted.status, JSON.parse(accepted.text)], [200, { received: 3, recorded: 3 }])
      const payment = YalidinePusher.bodyOf("parcel_payment_updated", [
        YalidinePusher.paymentUpdated(tracking, "ready", { at: later + 180_000, paymentId: "PAY-1" })
      ])
      const paid = yield* post(accountId, payment, YalidinePusher.sign(payment, YALIDINE_SECRET))
      assert.strictEqual(paid.status, 200, paid.text)
      yield* InMemory.pushesApplied(accountId, { trackingNumber: tracking })
      const detail = yield* detailOf(store, orderId)
      assert.strictEqual(detail.status, "delivered")
      assert.deepInclude(detail.shipment, { status: "delivered", raw_status: "Livré", cod_status: "collected" })
      assert.deepStrictEqual(
        detail.shipment.timeline.map((event: { kind: string; raw_status: string }) => [event.kind, event.raw_status]),
        [
          // The create's answer in the courier's own words.
          ["movement", "En préparation"],
          ["movement", "Ramassé"],
          ["movement", "Sorti en livraison"],
          ["movement", "Livré"],
          ["cod", "ready"]
        ]
      )
      // A type Yalidine may add later, and one that reports nothing: acknowledged, nothing recorded.
      const edited = YalidinePusher.bodyOf("parcel_edited", [YalidinePusher.statusUpdated(tracking, "Livré")])
      const ignored = yield* post(accountId, edited, YalidinePusher.sign(edited, YALIDINE_SECRET))
      assert.deepStrictEqual([ignored.status, JSON.parse(ignored.text)], [200, { received: 0, recorded: 0 }])
    })
  )

  it.effect("ZR Express (Svix signatures, stale ones refused) and Maystro (twice base64, its secret header)", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const zrSecret = ZrExpressPusher.newSecret()
      const zr = yield* shippedThrough(store, {
        courier: "zrexpress_new",
        credentials: { apiKey: ZR_ACCOUNT.apiKey, tenantId: ZR_ACCOUNT.tenantId },
        webhook_secret: zrSecret
      })
      const zrShipment = (yield* detailOf(store, zr.orderId)).shipment
      const parcel = { id: zrShipment.courier_reference ?? zr.tracking, trackingNumber: zr.tracking }
      const event = ZrExpressPusher.stateUpdated(parcel, "Delivered", Date.now() + 5_000)
      const body = new Uint8Array(Buffer.from(JSON.stringify(event)))
      const forged = yield* post(
        zr.accountId,
        body,
        ZrExpressPusher.sign(body, ZrExpressPusher.newSecret(), Date.now())
      )
      assert.deepStrictEqual(codeOf(forged), [401, "invalid_signature"])
      const replayed = yield* post(zr.accountId, body, ZrExpressPusher.sign(body, zrSecret, Date.now() - 3_600_000))
      assert.deepStrictEqual(codeOf(replayed), [401, "stale_request"])
      assert.strictEqual((yield* detailOf(store, zr.orderId)).status, "shipped", "nothing applied")
      const headers = ZrExpressPusher.sign(body, zrSecret, Date.now())
      const accepted = yield* post(zr.accountId, body, { "content-type": "application/json", ...headers })
      assert.deepStrictEqual([accepted.status, JSON.parse(accepted.text)], [200, { received: 1, recorded: 1 }])
      // Svix delivers a message again under its id: acknowledged, nothing new.
      const again = yield* post(
        zr.accountId,
        body,
        ZrExpressPusher.sign(body, zrSecret, Date.now(), headers["svix-id"])
      )
      assert.deepStrictEqual(JSON.parse(again.text), { received: 1, recorded: 0 })
      yield* InMemory.pushesApplied(zr.accountId, {
        trackingNumber: zr.tracking,
        courierReference: zrShipment.courier_reference
      })
      assert.deepInclude((yield* detailOf(store, zr.orderId)).shipment, {
        status: "delivered",
        raw_status: "Delivered"
      })

      const maystroSecret = `maystro-hook-${randomBytes(8).toString("hex")}`
      const maystro = yield* shippedThrough(store, {
        courier: "maystro",
        credentials: { apiKey: MAYSTRO_KEY },
        webhook_secret: maystroSecret
      })
      const order = (status: number, seconds: number) => ({
        id: maystro.tracking,
        display_id_order: 4242,
        status,
        updated_at: MaystroPusher.algiersTime(Date.now() + seconds * 1000)
      })
      const picked = MaystroPusher.bodyOf(order(8, 60), "json-string")
      const wrong = yield* post(maystro.accountId, picked, MaystroPusher.sign(picked, `${maystroSecret}x`))
      assert.deepStrictEqual(codeOf(wrong), [401, "invalid_signature"])
      const missing = yield* post(maystro.accountId, picked, { "content-type": "application/json" })
      assert.deepStrictEqual(codeOf(missing), [401, "invalid_signature"])
      for (const [body, status] of [
        [picked, "picked_up"],
        [MaystroPusher.bodyOf(order(41, 120), "raw"), "delivered"]
      ] as const) {
        const answer = yield* post(maystro.accountId, body, MaystroPusher.sign(body, maystroSecret))
        assert.strictEqual(answer.status, 200, answer.text)
        yield* InMemory.pushesApplied(maystro.accountId, {
          trackingNumber: maystro.tracking,
          courierReference: maystro.tracking
        })
        assert.strictEqual((yield* detailOf(store, maystro.orderId)).shipment.status, status)
      }
      assert.strictEqual((yield* detailOf(store, maystro.orderId)).status, "delivered")
      const notBase64 = new Uint8Array(Buffer.from("{not twice base64}"))
      const malformed = yield* post(maystro.accountId, notBase64, MaystroPusher.sign(notBase64, maystroSecret))
      assert.deepStrictEqual(codeOf(malformed), [400, "bad_request"])
    })
  )

  // 413 over 1 MB is the listener's (its body limit): `../shipments/ShipmentsSql.db.test.ts`, over a socket.
  it.effect("refusals: 404 unknown account, 401 bad, missing or stale signature, 400 malformed", () =>
    Effect.gen(function* () {
      const store = yield* createStore()
      const { accountId, orderId, tracking } = yield* shippedThrough(store, pushcoAccount)
      const sandbox = (yield* store.write("POST", "/v1/shipping/accounts", { courier: "sandbox", label: "S" })).body
        .data.id
      const secretless = (yield* store.write("POST", "/v1/shipping/accounts", {
        courier: "pushco",
        label: "Sans secret",
        credentials: { token: "pushco-token" }
      })).body.data.id
      const before = yield* detailOf(store, orderId)
      const marker = `ECHO-${randomBytes(6).toString("hex")}`
      const good = Couriers.pushcoBody([{ id: marker, tracking, status: "delivered", at: isoIn(5), reason: marker }])
      const signed = Couriers.pushcoHeaders(good)
      const cases: ReadonlyArray<
        readonly [string, number | string, Uint8Array | string, Record<string, string>, number, string]
      > = [
        ["an account that never was", 2_000_000_000, good, signed, 404, "not_found"],
        ["an account of a courier that does not push", sandbox, good, signed, 404, "not_found"],
        ["an account id that is none", "0", good, signed, 404, "not_found"],
        ["no signature", accountId, good, { "content-type": "application/json" }, 401, "invalid_signature"],
        [
          "another secret's signature",
          accountId,
          good,
          Couriers.pushcoHeaders(good, `pcsec_${"0".repeat(32)}`),
          401,
          "invalid_signature"
        ],
        ["a signature of other bytes", accountId, `${good} `, signed, 401, "invalid_signature"],
        [
          "a signature that is not hex",
          accountId,
          good,
          { ...signed, "x-pushco-signature": marker },
          401,
          "invalid_signature"
        ],
        [
          "a replayed request, signed an hour ago",
          accountId,
          good,
          Couriers.pushcoHeaders(good, Couriers.PUSH_SECRET, Math.floor(Date.now() / 1000) - 3600),
          401,
          "stale_request"
        ],
        ["an account with no webhook secret", secretless, good, signed, 401, "invalid_signature"],
        [
          "a signed body that is not pushco's",
          accountId,
          `{"type":"${marker}"}`,
          Couriers.pushcoHeaders(`{"type":"${marker}"}`),
          400,
          "bad_request"
        ],
        [
          "signed bytes that are not UTF-8",
          accountId,
          new Uint8Array([0xff, 0xfe, 0x00, 0x7b]),
          Couriers.pushcoHeaders(new Uint8Array([0xff, 0xfe, 0x00, 0x7b])),
          400,
          "bad_request"
        ]
      ]
      for (const [what, account, bytes, headers, status, code] of cases) {
        const answer = yield* post(account, bytes, headers)
        assert.deepStrictEqual(codeOf(answer), [status, code], `${what}: ${answer.text}`)
        assert.notInclude(answer.text, marker, `${what}: echoed`)
        assert.notInclude(answer.text, tracking, `${what}: echoed`)
      }
      const pathNotId = yield* post("abc", good, signed)
      assert.deepStrictEqual(codeOf(pathNotId), [400, "bad_request"])
      const badChallenge = yield* InMemory.call("GET", `${hook(accountId)}?challenge=${marker}`)
      assert.deepStrictEqual(codeOf(badChallenge), [400, "bad_request"])
      assert.notInclude(badChallenge.text, marker)

      assert.deepStrictEqual(yield* detailOf(store, orderId), before, "nothing changed")
      assert.deepStrictEqual(yield* waiting(accountId, tracking), [], "nothing recorded")
    })
  )

  it.effect(
    `hostile requests (${FUZZ_RUNS}): never a 5xx, nothing echoed, nothing recorded from a refused one`,
    () =>
      Effect.gen(function* () {
        const store = yield* createStore()
        const viaPushco = yield* shippedThrough(store, pushcoAccount)
        const viaYalidine = yield* shippedThrough(store, yalidineAccount)
        const zrSecret = ZrExpressPusher.newSecret()
        const viaZr = yield* shippedThrough(store, {
          courier: "zrexpress_new",
          credentials: { apiKey: ZR_ACCOUNT.apiKey, tenantId: ZR_ACCOUNT.tenantId },
          webhook_secret: zrSecret
        })
        const maystroSecret = `maystro-hook-${randomBytes(8).toString("hex")}`
        const viaMaystro = yield* shippedThrough(store, {
          courier: "maystro",
          credentials: { apiKey: MAYSTRO_KEY },
          webhook_secret: maystroSecret
        })
        const silent = (yield* store.write("POST", "/v1/shipping/accounts", { courier: "sandbox", label: "S" })).body
          .data.id
        const targets: PushRequests.Targets = {
          pushco: { id: viaPushco.accountId, secret: Couriers.PUSH_SECRET },
          yalidine: { id: viaYalidine.accountId, secret: YALIDINE_SECRET },
          zr: { id: viaZr.accountId, secret: zrSecret },
          maystro: { id: viaMaystro.accountId, secret: maystroSecret },
          silent
        }
        const shipped = [viaPushco, viaYalidine, viaZr, viaMaystro]
        const before = yield* Effect.forEach(shipped, (via) => detailOf(store, via.orderId))
        const shapes = fc.sample(PushRequests.shape, { numRuns: FUZZ_RUNS, seed: PushRequests.SEED })
        const problems: Array<string> = []
        const statuses = new Map<number, number>()
        yield* Effect.forEach(
          shapes,
          (shape, index) =>
            Effect.gen(function* () {
              const request = PushRequests.materialise(shape, targets, index, Date.now())
              const answer = yield* InMemory.call(request.method, request.url, {
                headers: request.headers,
                bytes: request.body
              })
              statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
              const problem = PushRequests.problemOf(request, {
                status: answer.status,
                text: answer.text,
                contentType: answer.headers.get("content-type")
              })
              if (problem !== undefined) problems.push(`#${index} ${request.method} ${request.url}: ${problem}`)
              if (answer.status !== 200 && request.accountId !== undefined && request.account !== undefined) {
                const recorded = yield* waiting(request.accountId, request.probe)
                if (recorded.length > 0) problems.push(`#${index}: refused (${answer.status}) but recorded`)
              }
            }),
          { concurrency: 8, discard: true }
        )
        assert.deepStrictEqual(problems.slice(0, 10), [], `${problems.length} answers broke the rules`)
        const count = (status: number) => statuses.get(status) ?? 0
        assert.isAbove(count(200), FUZZ_RUNS / 20, JSON.stringify([...statuses]))
        assert.isAbove(count(401), FUZZ_RUNS / 20, JSON.stringify([...statuses]))
        assert.isAbove(count(400), FUZZ_RUNS / 20, JSON.stringify([...statuses]))
        assert.isAbove(count(404), 0, JSON.stringify([...statuses]))
        // The real parcels were named only in requests that could not be accepted: nothing moved them.
        assert.deepStrictEqual(yield* Effect.forEach(shipped, (via) => detailOf(store, via.orderId)), before)
      }),
    120_000
  )
})
