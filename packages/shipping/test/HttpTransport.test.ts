import * as Http from "node:http"
import type * as Net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import type { CourierManifest, RateLimit } from "@tawsil/courier/CourierAdapter"
import type { CourierErrorReason } from "@tawsil/courier/CourierError"
import { type CourierHttp, documentRequest } from "@tawsil/courier/CourierHttp"
import { Egress } from "@tawsil/egress"
import { Clock, Context, Duration, Effect, Fiber, Layer, Metric, Tracer } from "effect"
import { TestClock } from "effect/testing"
import * as CourierPacer from "../src/CourierPacer.ts"
import * as HttpTransport from "../src/HttpTransport.ts"
import { Transport } from "../src/Shipping.ts"
import * as ShippingMetrics from "../src/ShippingMetrics.ts"

/** A loopback courier that records what it receives and answers per path. */
const fakeCourier = Effect.acquireRelease(
  Effect.callback<{
    port: number
    server: Http.Server
    seen: Array<{ method: string; url: string; body: string; auth: string | undefined; host?: string | undefined }>
    closed: Array<string>
    /** Each request's content type, in the order `seen` holds them. */
    types: Array<string | undefined>
  }>((resume) => {
    const seen: Array<{
      method: string
      url: string
      body: string
      auth: string | undefined
      host?: string | undefined
    }> = []
    const closed: Array<string> = []
    const types: Array<string | undefined> = []
    const server = Http.createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => {
        body += chunk
      })
      request.on("end", () => {
        types.push(request.headers["content-type"])
        seen.push({
          method: request.method!,
          url: request.url!,
          body,
          auth: request.headers.authorization,
          host: request.headers.host
        })
        if (request.url!.startsWith("/hang")) {
          request.socket.on("close", () => closed.push(request.url!))
          return
        }
        if (request.url!.startsWith("/redirect")) {
          response.writeHead(302, { location: "https://evil.example/steal" }).end()
          return
        }
        if (request.url!.startsWith("/down")) {
          response.writeHead(503, { "content-type": "text/html" }).end("<html>maintenance</html>")
          return
        }
        if (request.url!.startsWith("/huge")) {
          response.writeHead(200, { "content-type": "application/json" })
          response.end(Buffer.alloc(HttpTransport.MAX_BODY_BYTES + 10, 0x61))
          return
        }
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true }))
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({ port: (server.address() as Net.AddressInfo).port, server, seen, closed, types }))
    )
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

const dhd: CourierManifest = {
  key: "dhd",
  name: "DHD",
  aliases: [],
  endpoint: { origin: "https://platform.dhd-dz.com" }
}
const tenant: CourierManifest = {
  key: "ecotrack",
  name: "Ecotrack",
  aliases: [],
  endpoint: { tenantDomain: "ecotrack.dz" }
}

const transportFor = (overrides: string, resolver = Egress.Resolver.layerTest({})) =>
  Effect.gen(function* () {
    const parsed = Egress.parseOverrides(overrides)
    assert.isTrue(parsed._tag === "Success")
    return yield* Transport.pipe(
      Effect.provide(
        HttpTransport.layer({ overrides: parsed._tag === "Success" ? parsed.success : new Map() }).pipe(
          Layer.provide([resolver, CourierPacer.layerMemory])
        )
      )
    )
  })

/** Binds `transport` for one operation starting now, as `Shipping` does: its deadline is the clock plus `timeout`. */
const bindNow = (
  transport: Transport["Service"],
  options: {
    readonly courier: CourierManifest
    readonly tenantOrigin: Egress.Origin | undefined
    readonly timeout: Duration.Duration
    readonly rateLimits?: ReadonlyArray<RateLimit>
    readonly account?: string
  }
) =>
  Effect.map(Clock.currentTimeMillis, (now) =>
    transport.bind({
      rateLimits: [],
      account: undefined,
      ...options,
      deadline: now + Duration.toMillis(options.timeout)
    })
  )

/** Waits, in real time whatever the test clock says, until `done` holds. */
const eventually = (done: () => boolean): Effect.Effect<void> =>
  Effect.suspend(() =>
    done() ? Effect.void : Effect.andThen(TestClock.withLive(Effect.sleep("5 millis")), eventually(done))
  )

describe("HttpTransport", () => {
  it.live(
    "sends relative requests to the courier's origin (here its loopback stand-in), with query and JSON body",
    () =>
      Effect.gen(function* () {
        const fake = yield* fakeCourier
        const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
        const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
        const response = yield* http.request({
          method: "POST",
          path: "/api/v1/create/order",
          query: { api_token: "t0k3n" },
          headers: { authorization: "Bearer t0k3n" },
          json: { nom_client: "Amina" }
        })
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(JSON.parse(response.text), { ok: true })
        assert.deepStrictEqual(fake.seen[0], {
          method: "POST",
          url: "/api/v1/create/order?api_token=t0k3n",
          body: JSON.stringify({ nom_client: "Amina" }),
          auth: "Bearer t0k3n",
          host: `127.0.0.1:${fake.port}`
        })
      }).pipe(Effect.scoped)
  )

  it.live("closes a connection idle for IDLE_MS itself, before a courier closing it could reset a request", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      // The courier would keep it a minute: only the transport's own idle limit closes it.
      fake.server.keepAliveTimeout = 60_000
      const opened: Array<Net.Socket> = []
      const ended: Array<Net.Socket> = []
      fake.server.on("connection", (socket: Net.Socket) => {
        opened.push(socket)
        socket.on("close", () => ended.push(socket))
      })
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
      yield* http.request({ method: "GET", path: "/a" })
      yield* http.request({ method: "GET", path: "/a" })
      assert.lengthOf(opened, 1, "calls one after the other share a connection")
      const idleSince = Date.now()
      const kept = opened.length
      while (ended.length < kept && Date.now() - idleSince < HttpTransport.IDLE_MS + 3_000) {
        yield* Effect.sleep("20 millis")
      }
      assert.strictEqual(ended.length, kept, "the idle connection was closed by the transport")
      assert.isAtLeast(Date.now() - idleSince, HttpTransport.IDLE_MS - 100, "not before it was idle that long")
      const after = yield* http.request({ method: "GET", path: "/b" })
      assert.strictEqual(after.status, 200)
      assert.strictEqual(opened.length, kept + 1, "the next call opens a new connection")
    }).pipe(Effect.scoped)
  )

  it.live("sends a form body form-encoded, with its content type (an OAuth token request)", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
      const response = yield* http.request({
        method: "POST",
        path: "/token",
        form: { grant_type: "password", username: "a b@c.dz", password: "p&ss=1" }
      })
      assert.strictEqual(response.status, 200)
      assert.strictEqual(fake.seen[0]?.body, "grant_type=password&username=a+b%40c.dz&password=p%26ss%3D1")
      assert.deepStrictEqual(fake.types, ["application/x-www-form-urlencoded"])
    }).pipe(Effect.scoped)
  )

  it.live("never follows a redirect: the 3xx reaches the adapter", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
      const response = yield* http.request({ method: "GET", path: "/redirect" })
      assert.strictEqual(response.status, 302)
      assert.lengthOf(fake.seen, 1)
    }).pipe(Effect.scoped)
  )

  it.live("bounds a hanging courier by the timeout and closes the socket", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.millis(300) })
      const failure = yield* Effect.flip(http.request({ method: "GET", path: "/hang" }))
      assert.strictEqual(failure._tag, "Unreachable")
      yield* Effect.sleep("100 millis")
      assert.deepStrictEqual(fake.closed, ["/hang"], "cancellation reached the socket")
    }).pipe(Effect.scoped)
  )

  it.live("cuts off an oversized body as a bad response, and reports a refused connection as unreachable", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(10) })
      assert.strictEqual((yield* Effect.flip(http.request({ method: "GET", path: "/huge" })))._tag, "BadResponse")
      const closed = yield* transportFor("https://platform.dhd-dz.com=http://127.0.0.1:1")
      const down = yield* bindNow(closed, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
      assert.strictEqual((yield* Effect.flip(down.request({ method: "GET", path: "/" })))._tag, "Unreachable")
    }).pipe(Effect.scoped)
  )

  it.live("refuses paths that leave the origin and hosts that resolve to private addresses, opening no socket", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(
        `https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`,
        Egress.Resolver.layerTest({
          "evil.ecotrack.dz": ["10.0.0.7"],
          "mixed.ecotrack.dz": ["41.111.1.1", "127.0.0.1"]
        })
      )
      const pinned = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
      const escaped = yield* Effect.flip(pinned.request({ method: "GET", path: "//evil.example/x" as `/${string}` }))
      assert.strictEqual(escaped._tag, "BlockedEgress")
      for (const host of ["evil.ecotrack.dz", "mixed.ecotrack.dz"]) {
        const origin = Egress.parseBaseUrl(`https://${host}`, "ecotrack.dz")
        assert.isTrue(origin._tag === "Success")
        if (origin._tag !== "Success") continue
        const http = yield* bindNow(transport, {
          courier: tenant,
          tenantOrigin: origin.success,
          timeout: Duration.seconds(5)
        })
        const refused = yield* Effect.flip(http.request({ method: "GET", path: "/api/v1/get/fees" }))
        assert.strictEqual(refused._tag, "BlockedEgress")
      }
      assert.lengthOf(fake.seen, 0, "nothing reached any server")
    }).pipe(Effect.scoped)
  )

  it.live("answers a pinned courier whose name does not resolve, or not to public addresses, as unreachable", () =>
    Effect.gen(function* () {
      const lookups: Array<string> = []
      const resolver = Layer.succeed(Egress.Resolver, {
        lookup: (host) =>
          Effect.sync(() => {
            lookups.push(host)
            return host === "platform.dhd-dz.com" ? [] : ["10.0.0.7"]
          })
      })
      const transport = yield* transportFor("", resolver)
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
      const missing = yield* Effect.flip(http.request({ method: "GET", path: "/api/v1/get/fees" }))
      assert.strictEqual(missing._tag, "Unreachable")
      assert.strictEqual(missing.message, "platform.dhd-dz.com does not resolve")
      const yalitec: CourierManifest = { ...dhd, key: "private", endpoint: { origin: "https://private.example.dz" } }
      const inside = yield* bindNow(transport, {
        courier: yalitec,
        tenantOrigin: undefined,
        timeout: Duration.seconds(5)
      })
      const refused = yield* Effect.flip(inside.request({ method: "GET", path: "/" }))
      assert.strictEqual(refused._tag, "Unreachable")
      assert.include(refused.message, "non-public")
      assert.deepStrictEqual(lookups, ["platform.dhd-dz.com", "private.example.dz"])
      // The same for a caller's tenant host is the caller's to fix: refused egress, as before.
      const origin = Egress.parseBaseUrl("https://typo.ecotrack.dz", "ecotrack.dz")
      assert.isTrue(origin._tag === "Success")
      if (origin._tag !== "Success") return
      const tenantHttp = yield* bindNow(transport, {
        courier: tenant,
        tenantOrigin: origin.success,
        timeout: Duration.seconds(5)
      })
      assert.strictEqual((yield* Effect.flip(tenantHttp.request({ method: "GET", path: "/" })))._tag, "BlockedEgress")
    }).pipe(Effect.scoped)
  )

  it.live("opens the circuit after consecutive failures and stops calling the courier", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
      for (let i = 0; i < HttpTransport.BREAKER_FAILURES; i++) {
        assert.strictEqual((yield* http.request({ method: "GET", path: "/down" })).status, 503)
      }
      const rejected = yield* Effect.flip(http.request({ method: "GET", path: "/down" }))
      assert.strictEqual(rejected._tag, "Unreachable")
      assert.include(rejected.message, "is failing")
      assert.lengthOf(fake.seen, HttpTransport.BREAKER_FAILURES, "the open circuit sent nothing")
    }).pipe(Effect.scoped)
  )

  it.live("connects to the checked addresses only, trying each in turn until one answers", () =>
    Effect.gen(function* () {
      const server = Http.createServer((request, response) => response.end(`reached ${request.socket.localAddress}`))
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.void))
        }),
        () =>
          Effect.sync(() => {
            server.close()
          })
      )
      const { port } = server.address() as Net.AddressInfo
      // 127.0.0.2 and 127.0.0.3 refuse the port (the server listens on 127.0.0.1 only): a host with a dead address.
      const options: Http.RequestOptions & { readonly autoSelectFamily: boolean } = {
        host: "courier.test",
        port,
        lookup: HttpTransport.pinnedLookup(["127.0.0.2", "127.0.0.3", "127.0.0.1"]),
        autoSelectFamily: true,
        agent: false
      }
      const answer = yield* Effect.callback<string, Error>((resume) => {
        const request = Http.request(options, (response) => {
          let text = ""
          response.on("data", (chunk: Buffer) => {
            text += chunk.toString()
          })
          response.on("end", () => resume(Effect.succeed(text)))
        })
        request.on("error", (error) => resume(Effect.fail(error)))
        request.end()
      })
      assert.strictEqual(answer, "reached 127.0.0.1")
    }).pipe(Effect.scoped)
  )

  describe("document hosts", () => {
    const withLabels: CourierManifest = { ...dhd, documents: ["*.blob.core.windows.net", "files.dhd-dz.com"] }
    const link = "https://labels.blob.core.windows.net/labels/16-AB.pdf?sv=2024-08-04&sig=s%2Bg%3D"

    it.live("fetches a link on a declared host as a bare GET: none of the adapter's headers, unpaced", () =>
      Effect.gen(function* () {
        const fake = yield* fakeCourier
        const transport = yield* transportFor(
          `https://platform.dhd-dz.com=http://127.0.0.1:${fake.port},https://*.blob.core.windows.net=http://127.0.0.1:${fake.port}`
        )
        const http = yield* bindNow(transport, {
          courier: withLabels,
          tenantOrigin: undefined,
          timeout: Duration.seconds(5),
          rateLimits: [{ limit: 1, window: Duration.minutes(1) }],
          account: "dhd:one"
        })
        // The account's one slot of the minute goes to the API; the document does not wait for the next.
        yield* http.request({ method: "GET", path: "/api/v1/get/orders" })
        const document = documentRequest(link)!
        const response = yield* http.request({ ...document, headers: { authorization: "Bearer t0k3n" } })
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(fake.seen[1], {
          method: "GET",
          url: "/labels/16-AB.pdf?sv=2024-08-04&sig=s%2Bg%3D",
          body: "",
          auth: undefined,
          host: `127.0.0.1:${fake.port}`
        })
        const next = yield* Effect.flip(http.request({ method: "GET", path: "/api/v1/get/orders" }))
        assert.strictEqual(next._tag, "CourierRateLimited", "the API's next slot is past the deadline")
      }).pipe(Effect.scoped)
    )

    it.live("refuses an undeclared host, a write, and a declared name on a private address, sending nothing", () =>
      Effect.gen(function* () {
        const fake = yield* fakeCourier
        const transport = yield* transportFor(
          `https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`,
          Egress.Resolver.layerTest({ "files.dhd-dz.com": ["10.0.0.7"] })
        )
        const http = yield* bindNow(transport, {
          courier: withLabels,
          tenantOrigin: undefined,
          timeout: Duration.seconds(5)
        })
        const elsewhere = yield* Effect.flip(http.request(documentRequest("https://evil.example/x.pdf")!))
        assert.strictEqual(elsewhere._tag, "BlockedEgress")
        const bare = yield* Effect.flip(http.request(documentRequest("https://blob.core.windows.net/x.pdf")!))
        assert.strictEqual(bare._tag, "BlockedEgress", "*.domain is its subdomains, not the domain itself")
        const write = yield* Effect.flip(http.request({ ...documentRequest(link)!, method: "POST", json: { a: 1 } }))
        assert.strictEqual(write._tag, "BlockedEgress")
        const form = yield* Effect.flip(http.request({ ...documentRequest(link)!, form: { a: "1" } }))
        assert.strictEqual(form._tag, "BlockedEgress", "a form body is no bare GET either")
        const inside = yield* Effect.flip(http.request(documentRequest("https://files.dhd-dz.com/x.pdf")!))
        assert.strictEqual(inside._tag, "Unreachable", "the courier's link to a private address is the courier's fault")
        assert.lengthOf(fake.seen, 0)
        const undeclared = yield* bindNow(transport, {
          courier: dhd,
          tenantOrigin: undefined,
          timeout: Duration.seconds(5)
        })
        assert.strictEqual((yield* Effect.flip(undeclared.request(documentRequest(link)!)))._tag, "BlockedEgress")
      }).pipe(Effect.scoped)
    )

    it("reads only plain https links", () => {
      assert.isUndefined(documentRequest("http://labels.blob.core.windows.net/x.pdf"))
      assert.isUndefined(documentRequest("https://user:pw@labels.blob.core.windows.net/x.pdf"))
      assert.isUndefined(documentRequest("https://labels.blob.core.windows.net:8443/x.pdf"))
      assert.isUndefined(documentRequest("not a link"))
    })
  })

  it.live("does not let an adapter set Host or framing headers", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
      yield* http.request({
        method: "GET",
        path: "/x",
        headers: { Host: "other-tenant.ecotrack.dz", "Transfer-Encoding": "chunked", "x-ok": "1" }
      })
      assert.strictEqual(fake.seen[0]!.host, `127.0.0.1:${fake.port}`)
    }).pipe(Effect.scoped)
  )

  it.effect("gives each request of an operation only what is left of the operation's budget", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(1) })
      assert.strictEqual((yield* http.request({ method: "POST", path: "/create" })).status, 200)
      yield* TestClock.adjust("600 millis") // the first call, and the adapter between the two, took 600 ms
      const second = yield* Effect.forkChild(Effect.flip(http.request({ method: "GET", path: "/hang" })))
      yield* eventually(() => fake.seen.length === 2)
      yield* TestClock.adjust("399 millis")
      assert.isUndefined(second.pollUnsafe(), "the second call still has 1 ms of the budget")
      yield* TestClock.adjust("1 millis")
      const failure = yield* Fiber.join(second)
      assert.strictEqual(failure._tag, "Unreachable")
      assert.strictEqual(failure.message, "DHD did not answer within 1s", "the message names the whole budget")
      yield* eventually(() => fake.closed.length === 1)
      assert.deepStrictEqual(fake.closed, ["/hang"], "cancellation reached the socket")
    }).pipe(Effect.scoped)
  )

  it.effect("fails a request made after the budget is spent as unreachable, without sending it", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(2) })
      assert.strictEqual((yield* http.request({ method: "POST", path: "/create" })).status, 200)
      yield* TestClock.adjust("2 seconds")
      const failure = yield* Effect.flip(http.request({ method: "GET", path: "/validate" }))
      assert.strictEqual(failure._tag, "Unreachable")
      assert.strictEqual(failure.message, "DHD did not answer within 2s")
      assert.deepStrictEqual(
        fake.seen.map(({ url }) => url),
        ["/create"],
        "the second call was never sent"
      )
    }).pipe(Effect.scoped)
  )

  it.effect("counts a courier silent for the longest timeout a caller may ask against its circuit", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      for (let i = 0; i < HttpTransport.BREAKER_FAILURES; i++) {
        const http = yield* bindNow(transport, {
          courier: dhd,
          tenantOrigin: undefined,
          timeout: HttpTransport.BREAKER_TIMEOUT
        })
        const call = yield* Effect.forkChild(Effect.flip(http.request({ method: "GET", path: "/hang" })))
        yield* eventually(() => fake.seen.length === i + 1)
        yield* TestClock.adjust(HttpTransport.BREAKER_TIMEOUT)
        assert.strictEqual((yield* Fiber.join(call)).message, "DHD did not answer")
      }
      const http = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
      const rejected = yield* Effect.flip(http.request({ method: "GET", path: "/x" }))
      assert.include(rejected.message, "is failing")
      assert.lengthOf(fake.seen, HttpTransport.BREAKER_FAILURES, "the open circuit sent nothing")
    }).pipe(Effect.scoped)
  )

  it.live("never opens the circuit for a caller's own timeout, however often, nor for a spent budget", () =>
    Effect.gen(function* () {
      const fake = yield* fakeCourier
      const transport = yield* transportFor(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
      for (let i = 0; i <= HttpTransport.BREAKER_FAILURES; i++) {
        const impatient = yield* bindNow(transport, {
          courier: dhd,
          tenantOrigin: undefined,
          timeout: Duration.millis(50)
        })
        const failure = yield* Effect.flip(impatient.request({ method: "GET", path: "/hang" }))
        assert.strictEqual(failure.message, "DHD did not answer within 50ms")
        const spent = transport.bind({
          courier: dhd,
          tenantOrigin: undefined,
          timeout: Duration.seconds(1),
          deadline: 0,
          rateLimits: [],
          account: undefined
        })
        assert.strictEqual((yield* Effect.flip(spent.request({ method: "GET", path: "/x" })))._tag, "Unreachable")
      }
      const patient = yield* bindNow(transport, { courier: dhd, tenantOrigin: undefined, timeout: Duration.seconds(5) })
      assert.strictEqual((yield* patient.request({ method: "GET", path: "/x" })).status, 200, "the circuit is closed")
      assert.lengthOf(fake.seen, HttpTransport.BREAKER_FAILURES + 2, "every hang and the last call were sent")
    }).pipe(Effect.scoped)
  )

  describe("rate limits", () => {
    const overrides = (fake: { readonly port: number }) =>
      `https://platform.dhd-dz.com=http://127.0.0.1:${fake.port},https://api.yalidine.app=http://127.0.0.1:${fake.port}`
    const yalidine: CourierManifest = {
      key: "yalidine",
      name: "Yalidine",
      aliases: [],
      endpoint: { origin: "https://api.yalidine.app" }
    }
    const limits = (...pairs: ReadonlyArray<readonly [number, Duration.Input]>): ReadonlyArray<RateLimit> =>
      pairs.map(([limit, window]) => ({ limit, window: Duration.fromInputUnsafe(window) }))
    /** The failure as adapters receive it: their operations fail with any `CourierErrorReason`. */
    const refusal = <A, E extends CourierErrorReason>(effect: Effect.Effect<A, E>) =>
      Effect.map(Effect.flip(effect), (reason): CourierErrorReason => reason)
    /** Lets forked requests run up to their next wait on the test clock. */
    const settle = Effect.andThen(TestClock.withLive(Effect.sleep("20 millis")), Effect.yieldNow)

    it.effect("paces an account's requests under its limit, each sent when its slot comes", () =>
      Effect.gen(function* () {
        const fake = yield* fakeCourier
        const transport = yield* transportFor(overrides(fake))
        const http = yield* bindNow(transport, {
          courier: yalidine,
          tenantOrigin: undefined,
          timeout: Duration.seconds(5),
          // Paced at 4 a second: one request every 250 ms.
          rateLimits: limits([5, "1 second"]),
          account: "account-a"
        })
        const requests = yield* Effect.forEach(["/1", "/2", "/3"] as const, (path) =>
          Effect.forkChild(http.request({ method: "GET", path }))
        )
        // Sent at once, on the test clock: only the loopback exchange takes real time.
        yield* eventually(() => fake.seen.length >= 1)
        yield* settle
        assert.deepStrictEqual(
          fake.seen.map(({ url }) => url),
          ["/1"],
          "the first goes at once, the others wait for their slots"
        )
        yield* TestClock.adjust("249 millis")
        yield* settle
        assert.lengthOf(fake.seen, 1)
        yield* TestClock.adjust("1 millis")
        yield* eventually(() => fake.seen.length >= 2)
        yield* settle
        assert.deepStrictEqual(
          fake.seen.map(({ url }) => url),
          ["/1", "/2"]
        )
        yield* TestClock.adjust("250 millis")
        for (const request of requests) assert.strictEqual((yield* Fiber.join(request)).status, 200)
        assert.deepStrictEqual(
          fake.seen.map(({ url }) => url),
          ["/1", "/2", "/3"],
          "in the order they asked"
        )
      }).pipe(Effect.scoped)
    )

    it.effect("queues a request for as long as its deadline allows, past a second", () =>
      Effect.gen(function* () {
        const fake = yield* fakeCourier
        const transport = yield* transportFor(overrides(fake))
        // 2 a minute is paced at one a minute: the second request's slot is a minute away.
        const bind = (timeout: Duration.Duration) =>
          bindNow(transport, {
            courier: dhd,
            tenantOrigin: undefined,
            timeout,
            rateLimits: limits([2, "1 minute"]),
            account: "account-a"
          })
        assert.strictEqual(
          (yield* (yield* bind(Duration.seconds(5))).request({ method: "GET", path: "/1" })).status,
          200
        )
        const patient = yield* Effect.forkChild(
          (yield* bind(Duration.seconds(90))).request({ method: "GET", path: "/2" })
        )
        yield* settle
        yield* TestClock.adjust("59 seconds")
        yield* settle
        assert.lengthOf(fake.seen, 1, "nothing sent before its slot")
        yield* TestClock.adjust("1 second")
        assert.strictEqual((yield* Fiber.join(patient)).status, 200)
        assert.lengthOf(fake.seen, 2)
      }).pipe(Effect.scoped)
    )

    it.effect(
      "refuses as CourierRateLimited, sending nothing and keeping no slot, when the slot is past the deadline",
      () =>
        Effect.gen(function* () {
          const fake = yield* fakeCourier
          const transport = yield* transportFor(overrides(fake))
          const bind = (timeout: Duration.Duration) =>
            bindNow(transport, {
              courier: yalidine,
              tenantOrigin: undefined,
              timeout,
              rateLimits: limits([2, "1 minute"]),
              account: "account-a"
            })
          yield* (yield* bind(Duration.seconds(5))).request({ method: "GET", path: "/1" })
          yield* TestClock.adjust("10 seconds")
          for (let i = 0; i < 3; i++) {
            const refused = yield* refusal((yield* bind(Duration.seconds(15))).request({ method: "GET", path: "/2" }))
            assert.strictEqual(refused._tag, "CourierRateLimited")
            if (refused._tag === "CourierRateLimited") assert.strictEqual(refused.retryAfterSeconds, 50)
          }
          assert.lengthOf(fake.seen, 1, "the refused requests were not sent")
          yield* TestClock.adjust("50 seconds")
          assert.strictEqual(
            (yield* (yield* bind(Duration.seconds(5))).request({ method: "GET", path: "/3" })).status,
            200,
            "the refusals kept no slot: the next one is free when the first's interval ends"
          )
        }).pipe(Effect.scoped)
    )

    it.effect("paces each account of each courier apart, across operations", () =>
      Effect.gen(function* () {
        const fake = yield* fakeCourier
        const transport = yield* transportFor(overrides(fake))
        const bind = (courier: CourierManifest, account: string) =>
          bindNow(transport, {
            courier,
            tenantOrigin: undefined,
            timeout: Duration.seconds(15),
            rateLimits: limits([2, "1 minute"]),
            account
          })
        const status = (http: CourierHttp["Service"]) =>
          Effect.map(Effect.result(http.request({ method: "GET", path: "/x" })), (result) =>
            result._tag === "Success" ? "sent" : result.failure._tag
          )
        const a1 = yield* bind(yalidine, "account-a")
        const a2 = yield* bind(yalidine, "account-a")
        const b = yield* bind(yalidine, "account-b")
        const otherCourier = yield* bind(dhd, "account-a")
        assert.deepStrictEqual(
          [yield* status(a1), yield* status(a2)],
          ["sent", "CourierRateLimited"],
          "two operations of one account share its pace"
        )
        assert.deepStrictEqual([yield* status(b), yield* status(b)], ["sent", "CourierRateLimited"])
        assert.deepStrictEqual([yield* status(otherCourier)], ["sent"])
        assert.lengthOf(fake.seen, 3)
        const unlimited = yield* bindNow(transport, {
          courier: yalidine,
          tenantOrigin: undefined,
          timeout: Duration.seconds(15)
        })
        for (let i = 0; i < 5; i++) assert.strictEqual(yield* status(unlimited), "sent", "no declared limits")
      }).pipe(Effect.scoped)
    )
  })

  describe("observability", () => {
    it.live(
      "counts each request by courier, platform and outcome, shows the circuit, and traces a client span without path or query",
      () =>
        Effect.gen(function* () {
          const fake = yield* fakeCourier
          const spans: Array<Tracer.Span> = []
          const tracer = Tracer.make({
            span: (options) => {
              const span = Tracer.nativeTracer.span(options)
              spans.push(span)
              return span
            }
          })
          const parsed = Egress.parseOverrides(`https://platform.dhd-dz.com=http://127.0.0.1:${fake.port}`)
          assert.isTrue(parsed._tag === "Success")
          // Built in the test's scope, so that the breaker's transitions are followed while it runs.
          const context = yield* Layer.build(
            HttpTransport.layer({ overrides: parsed._tag === "Success" ? parsed.success : new Map() }).pipe(
              Layer.provide([Egress.Resolver.layerTest({}), CourierPacer.layerMemory])
            )
          )
          const transport = Context.get(context, Transport)
          const now = yield* Clock.currentTimeMillis
          const http = transport.bind({
            courier: dhd,
            platform: "ecotrack",
            tenantOrigin: undefined,
            timeout: Duration.seconds(5),
            deadline: now + 5_000,
            rateLimits: [],
            account: undefined
          })
          const count = (outcome: ShippingMetrics.Outcome) =>
            Effect.map(
              Metric.value(
                Metric.withAttributes(ShippingMetrics.courierRequests, {
                  courier: "dhd",
                  platform: "ecotrack",
                  outcome
                })
              ),
              (state) => state.count
            )

          const answered = yield* http
            .request({ method: "POST", path: "/api/v1/create/order", query: { api_token: "t0k3n" }, json: { a: 1 } })
            .pipe(Effect.withTracer(tracer))
          assert.strictEqual(answered.status, 200)
          const [span] = spans.filter((span) => span.kind === "client")
          assert.isDefined(span)
          assert.strictEqual(span!.name, "courier POST")
          assert.deepInclude(Object.fromEntries(span!.attributes), {
            "tawsil.courier": "dhd",
            "tawsil.courier.platform": "ecotrack",
            "http.request.method": "POST",
            "server.address": "platform.dhd-dz.com",
            "http.response.status_code": 200,
            "tawsil.courier.outcome": "2xx"
          })
          const exported = JSON.stringify([...span!.attributes])
          assert.notInclude(exported, "t0k3n")
          assert.notInclude(exported, "/api/v1")
          assert.strictEqual(yield* count("2xx"), 1)

          for (let i = 0; i < HttpTransport.BREAKER_FAILURES; i++) {
            assert.strictEqual((yield* http.request({ method: "GET", path: "/down" })).status, 503)
          }
          yield* Effect.flip(http.request({ method: "GET", path: "/down" }))
          assert.strictEqual(yield* count("5xx"), HttpTransport.BREAKER_FAILURES)
          assert.strictEqual(yield* count("circuit_open"), 1)
          const circuit = Metric.withAttributes(ShippingMetrics.circuitState, { origin: "https://platform.dhd-dz.com" })
          // The gauge follows the breaker's transitions on a fiber of its own.
          for (let tries = 0; (yield* Metric.value(circuit)).value !== 2; tries++) {
            assert.isBelow(tries, 200, "the circuit shows open")
            yield* Effect.sleep("5 millis")
          }
          const seconds = yield* Metric.value(
            Metric.withAttributes(ShippingMetrics.courierRequestSeconds, { courier: "dhd", platform: "ecotrack" })
          )
          assert.strictEqual(seconds.count, 2 + HttpTransport.BREAKER_FAILURES)
        }).pipe(Effect.provideService(Metric.MetricRegistry, new Map()), Effect.scoped)
    )
  })
})
