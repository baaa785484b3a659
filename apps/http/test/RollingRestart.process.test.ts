/**
 * A rolling restart behind a balancer that follows `/health/ready` drops no request. Two app processes (`npm start`)
 * on one real PostgreSQL database sit behind a small loopback balancer, one front per API, that sends each request
 * to an instance whose listener answered `/health/ready` 200 recently (asked every 100 ms; a 503 or a refused
 * connection takes it out at once, silence after 5 s), never retries, and keeps connections to the instances alive
 * as balancers do. While
 * a bounded loop of reads and writes runs through both fronts, each instance in turn gets SIGTERM and a replacement
 * is started: the stopping one answers 503 on `/health/ready` (in its envelope) and 200 on `/health/live` while it
 * drains (`SHUTDOWN_DRAIN_MS`), then stops accepting, finishes, exits 0. Not one request may fail.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect, Fiber, Redacted, type Scope } from "effect"
import { type AppProcess, runAdmin, startApp, waitForExit } from "./AppProcess.ts"

const PROBE_EVERY_MS = 100
/** How long an instance stays in without a fresh 200: only a hung one is taken out this way. */
const READY_WITHIN_MS = 5000
/** Covers noticing a 503 (the probe interval, and the probe's latency on a machine busy with other tests). */
const DRAIN_MS = 3000
/** A start on a machine busy with other tests can take a while; it only delays the test. */
const STARTS_WITHIN_MS = 90_000

type Api = "shipping" | "store"

interface Instance {
  readonly name: string
  readonly app: AppProcess
  readonly urls: Record<Api, string>
  /** When each listener last answered `/health/ready` 200 (0: not ready). */
  readonly readyAt: Record<Api, number>
  /** Every probe answer, in order: a status, or `refused` when nothing answered. */
  readonly probed: Record<Api, Array<number | "refused">>
  /** Whether a probe of that listener is under way (probes never pile up on a slow instance). */
  readonly probing: Record<Api, boolean>
  served: number
}

const instanceOf = (name: string, app: AppProcess): Instance => ({
  name,
  app,
  urls: { shipping: app.shippingUrl, store: app.storeUrl },
  readyAt: { shipping: 0, store: 0 },
  probed: { shipping: [], store: [] },
  probing: { shipping: false, store: false },
  served: 0
})

/** What a request through the balancer came to. */
interface Outcome {
  readonly api: Api
  readonly status: number | "lost"
  readonly instance: string | undefined
  readonly detail?: string | undefined
}

/**
 * The balancer: a front per API on a loopback port, the instances it may send to, and its prober. No retries: an
 * answer the instance did not give (no instance ready, a refused or reset connection) is a 502/503 of its own.
 */
const balancer = Effect.acquireRelease(
  Effect.promise(async () => {
    const instances: Array<Instance> = []
    const agent = new Http.Agent({ keepAlive: true, maxSockets: 16 })
    const turn = { shipping: 0, store: 0 }
    const ready = (api: Api) => {
      const now = Date.now()
      return instances.filter((instance) => instance.readyAt[api] > 0 && now - instance.readyAt[api] <= READY_WITHIN_MS)
    }
    const front = (api: Api) =>
      Http.createServer((request, response) => {
        const chosen = ready(api)
        if (chosen.length === 0) {
          response.writeHead(503, { "x-balancer": "no instance ready" }).end()
          return
        }
        const instance = chosen[turn[api]++ % chosen.length]!
        const target = new URL(request.url ?? "/", instance.urls[api])
        const forwarded = Http.request(
          target,
          { method: request.method, headers: { ...request.headers, host: target.host }, agent },
          (answer) => {
            instance.served++
            response.writeHead(answer.statusCode ?? 502, { ...answer.headers, "x-instance": instance.name })
            answer.pipe(response)
          }
        )
        forwarded.on("error", (error) => {
          if (!response.headersSent) {
            response.writeHead(502, { "x-balancer": `${instance.name}: ${error.message}`, "x-instance": instance.name })
          }
          response.end()
        })
        request.pipe(forwarded)
      })
    const probe = (instance: Instance, api: Api) => {
      instance.probing[api] = true
      return fetch(`${instance.urls[api]}/health/ready`, { signal: AbortSignal.timeout(3000) })
        .then(async (answer) => {
          await answer.arrayBuffer()
          instance.probed[api].push(answer.status)
          instance.readyAt[api] = answer.status === 200 ? Date.now() : 0
        })
        .catch((error: Error) => {
          // A probe that timed out says nothing new; a refused or reset connection takes the instance out.
          if (error.name === "TimeoutError") return
          instance.probed[api].push("refused")
          instance.readyAt[api] = 0
        })
        .finally(() => {
          instance.probing[api] = false
        })
    }
    const prober = setInterval(() => {
      for (const instance of instances) {
        for (const api of ["shipping", "store"] as const) if (!instance.probing[api]) void probe(instance, api)
      }
    }, PROBE_EVERY_MS)
    const listen = (server: Http.Server) =>
      new Promise<string>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
      )
    const servers = { shipping: front("shipping"), store: front("store") }
    const urls = { shipping: await listen(servers.shipping), store: await listen(servers.store) }
    return { instances, ready, urls, servers, prober, agent }
  }),
  ({ servers, prober, agent }) =>
    Effect.promise(async () => {
      clearInterval(prober)
      agent.destroy()
      for (const server of Object.values(servers)) {
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
      }
    })
)

type Balancer = Effect.Success<typeof balancer>

/** Waits until `done` holds (polling every 50 ms), or dies saying `what`. */
const waitUntil = (done: () => boolean, within: number, what: string) =>
  Effect.gen(function* () {
    const deadline = Date.now() + within
    while (!done()) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`${what}: not within ${within} ms`))
      yield* Effect.sleep("50 millis")
    }
  })

const readyOnBoth = (front: Balancer, instance: Instance) =>
  (["shipping", "store"] as const).every((api) => front.ready(api).includes(instance))

/** One request through a front, answered in full. */
const call = (url: string, init: RequestInit) =>
  fetch(url, { ...init, signal: AbortSignal.timeout(30_000) })
    .then(async (answer) => ({
      status: answer.status,
      instance: answer.headers.get("x-instance") ?? undefined,
      detail: answer.status >= 400 ? `${answer.headers.get("x-balancer") ?? ""} ${await answer.text()}` : undefined,
      body: answer.status < 400 ? await answer.text() : ""
    }))
    .catch((error: Error) => ({ status: "lost" as const, instance: undefined, detail: error.message, body: "" }))

const ok = (run: { readonly code: number | null; readonly stderr: string; readonly json: unknown }) => {
  assert.strictEqual(run.code, 0, JSON.stringify(run.json) + run.stderr)
  // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON, field by field
  return run.json as any
}

/** SIGTERM to `old` and a replacement started at once; done when the replacement takes traffic and `old` is gone. */
const replace = (
  front: Balancer,
  env: Record<string, string>,
  old: Instance,
  name: string
): Effect.Effect<
  { readonly replaced: Instance; readonly replacement: Instance; readonly duringDrain: DrainView },
  Error,
  Scope.Scope
> =>
  Effect.gen(function* () {
    old.app.child.kill("SIGTERM")
    const [duringDrain, replacement] = yield* Effect.all(
      [
        drainView(old),
        Effect.map(startApp(env, { within: STARTS_WITHIN_MS }), (app) => {
          const instance = instanceOf(name, app)
          front.instances.push(instance)
          return instance
        })
      ],
      { concurrency: "unbounded" }
    )
    yield* waitUntil(() => readyOnBoth(front, replacement), 30_000, `${name} ready behind the balancer`)
    const exit = yield* waitForExit(old.app)
    assert.strictEqual(exit.code, 0, `${old.name} exits 0 after its drain:\n${old.app.stderr()}`)
    front.instances.splice(front.instances.indexOf(old), 1)
    return { replaced: old, replacement, duringDrain }
  })

interface DrainView {
  readonly ready: Record<Api, { readonly status: number | "refused"; readonly body: unknown }>
  readonly live: Record<Api, { readonly status: number | "refused"; readonly body: unknown }>
}

/** What a stopping instance's probes answer shortly after its SIGTERM, asked directly (its drain has begun). */
const drainView = (instance: Instance) =>
  Effect.promise(async () => {
    const ask = async (url: string): Promise<{ readonly status: number | "refused"; readonly body: unknown }> => {
      for (;;) {
        const answer = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
          async (answer) => ({ status: answer.status, body: await answer.json() }),
          (error: Error) => ({ status: "refused" as const, body: error.message })
        )
        // Until the signal has been handled, the process still answers as before.
        if (!url.endsWith("/ready") || answer.status !== 200) return answer
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    const ready = {
      shipping: await ask(`${instance.urls.shipping}/health/ready`),
      store: await ask(`${instance.urls.store}/health/ready`)
    }
    const live = {
      shipping: await ask(`${instance.urls.shipping}/health/live`),
      store: await ask(`${instance.urls.store}/health/live`)
    }
    return { ready, live } satisfies DrainView
  })

describe("a rolling restart behind a balancer following /health/ready", () => {
  // Two instances on one database: only a PostgreSQL server can be shared (an embedded one is locked to the process
  // that opened it), so this runs where DATABASE_URL is set, as in CI, and is reported as skipped where it is not.
  const adminUrl = TestDatabase.serverUrl

  it.live.skipIf(adminUrl === undefined)(
    "two instances on one database, each replaced in turn under a steady request loop: no request fails",
    () =>
      Effect.gen(function* () {
        const url = yield* TestDatabase.freshServerDatabase(adminUrl!)
        const env = {
          DATABASE_URL: Redacted.value(url),
          LOG_LEVEL: "warn",
          SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
          SHIPPING_RATE_LIMIT_PER_MINUTE: "1000000"
        }
        const front = yield* balancer
        const [a, b] = yield* Effect.all(
          [startApp(env, { within: STARTS_WITHIN_MS }), startApp(env, { within: STARTS_WITHIN_MS })],
          { concurrency: "unbounded" }
        )
        front.instances.push(instanceOf("a", a!), instanceOf("b", b!))
        yield* waitUntil(
          () => front.instances.every((instance) => readyOnBoth(front, instance)),
          30_000,
          "a and b ready"
        )

        const created = ok(yield* runAdmin(env, "store", "create", "--name", "Redémarrage"))
        const token: string = created.platform_key.bearer_token
        ok(yield* runAdmin(env, "quota", "set", "--store", String(created.store.id), "--requests-per-minute", "-1"))
        const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" }
        const product = yield* Effect.promise(() =>
          call(`${front.urls.store}/v1/products`, {
            method: "POST",
            headers: { ...auth, "idempotency-key": "product-1" },
            body: JSON.stringify({ name: "Chéchia", price: 1500, stock: 1_000_000 })
          })
        )
        assert.strictEqual(product.status, 200, product.detail)
        const productId: number = JSON.parse(product.body).data.id

        // The loop: 6 clients, each waiting for its answer before the next request, until told to stop.
        const outcomes: Array<Outcome> = []
        let running = true
        let orders = 0
        const requests: ReadonlyArray<() => readonly [Api, string, RequestInit]> = [
          () => ["shipping", `${front.urls.shipping}/v1/wilayas?code=16`, {}],
          () => ["shipping", `${front.urls.shipping}/v1/couriers`, {}],
          () => ["store", `${front.urls.store}/v1/orders?limit=5`, { headers: auth }],
          () => ["store", `${front.urls.store}/v1/store`, { headers: auth }],
          () => {
            const n = ++orders
            return [
              "store",
              `${front.urls.store}/v1/orders`,
              {
                method: "POST",
                headers: { ...auth, "idempotency-key": `order-${n}` },
                body: JSON.stringify({
                  customer: {
                    name: `Client ${n}`,
                    phone: `0661${String(n).padStart(6, "0")}`,
                    wilaya_id: 16,
                    commune: "Alger"
                  },
                  items: [{ product_id: productId, quantity: 1 }]
                })
              }
            ]
          },
          () => ["store", `${front.urls.store}/v1/products`, { headers: auth }]
        ]
        const client = (next: () => readonly [Api, string, RequestInit]) =>
          Effect.promise(async () => {
            while (running) {
              const [api, target, init] = next()
              const answer = await call(target, init)
              outcomes.push({ api, status: answer.status, instance: answer.instance, detail: answer.detail })
            }
          })
        const loop = yield* Effect.forkChild(Effect.all(requests.map(client), { concurrency: "unbounded" }))

        // Traffic before, between and after the two replacements: counted in answers, not in time.
        const answered = (count: number, what: string) =>
          waitUntil(() => outcomes.length >= count, 60_000, `${count} answers ${what}`)
        yield* answered(50, "before the first replacement")
        const first = yield* replace(front, env, front.instances[0]!, "a2")
        yield* answered(outcomes.length + 25, "between the replacements")
        const second = yield* replace(front, env, front.instances[0]!, "b2")
        yield* answered(outcomes.length + 50, "after the second replacement")
        running = false
        yield* Fiber.join(loop)

        const failed = outcomes.filter(({ status }) => status === "lost" || status >= 300)
        const byInstance = new Map<string, number>()
        for (const { instance } of outcomes)
          byInstance.set(instance ?? "none", (byInstance.get(instance ?? "none") ?? 0) + 1)
        console.log(
          `rolling restart: ${outcomes.length} requests through the balancer (${JSON.stringify(Object.fromEntries(byInstance))}), ` +
            `${failed.length} failed; /health/ready of a: ${summary(first.replaced)}; of b: ${summary(second.replaced)}`
        )
        assert.deepStrictEqual(failed.slice(0, 5), [], `${failed.length} of ${outcomes.length} requests failed`)
        assert.isAtLeast(outcomes.length, 200)
        for (const name of ["a", "b", "a2", "b2"]) {
          assert.isAtLeast(byInstance.get(name) ?? 0, 1, `${name} served requests`)
        }

        // What the stopping instances said while they drained: not ready, in each server's envelope; live.
        for (const { duringDrain } of [first, second]) {
          assert.strictEqual(duringDrain.ready.shipping.status, 503)
          assert.deepStrictEqual(duringDrain.ready.shipping.body, {
            error: { code: "unavailable", message: "not ready: this process is stopping" }
          })
          assert.strictEqual(duringDrain.ready.store.status, 503)
          const store = duringDrain.ready.store.body as { error: unknown; meta: { request_id: string } }
          assert.deepStrictEqual(store.error, { code: "unavailable", message: "not ready: this process is stopping" })
          assert.match(store.meta.request_id, /^req_/)
          for (const api of ["shipping", "store"] as const) {
            assert.strictEqual(duringDrain.live[api].status, 200)
            assert.deepStrictEqual(duringDrain.live[api].body, { status: "live", draining: true })
          }
        }
        second.replacement.app.child.kill("SIGTERM")
        first.replacement.app.child.kill("SIGTERM")
        assert.strictEqual((yield* waitForExit(first.replacement.app)).code, 0)
        assert.strictEqual((yield* waitForExit(second.replacement.app)).code, 0)
      }).pipe(Effect.scoped),
    { timeout: 300_000 }
  )
})

/** The balancer's probe answers from an instance, per API, run-length encoded: `200×12 503×20 refused×3`. */
const summary = (instance: Instance) =>
  (["shipping", "store"] as const)
    .map((api) => {
      const runs: Array<[number | "refused", number]> = []
      for (const answer of instance.probed[api]) {
        const last = runs.at(-1)
        if (last?.[0] === answer) last[1]++
        else runs.push([answer, 1])
      }
      return `${api} ${runs.map(([answer, count]) => `${answer}×${count}`).join(" ")}`
    })
    .join(", ")
