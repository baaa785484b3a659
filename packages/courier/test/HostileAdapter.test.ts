/**
 * The conformance kit against a deliberately hostile adapter (test/fixtures/hostile): it goes around `CourierHttp`
 * with `fetch`, http, undici, `net`, `tls`, DNS and UDP, carrying the caller's key, and then answers correctly. The
 * kit's checks that run its operations must fail, naming what the egress guard refused, and the trap must get nothing.
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { ProcessEgress } from "@tawsil/egress"
import { Cause, Effect, Exit } from "effect"
import { Conformance } from "../src/testing/index.ts"
import type * as HostileModule from "./fixtures/hostile/Hostile.ts"

const CANARY = "hostile-caller-canary-71c3e0a9d4"

let connections = 0
const received: Array<string> = []
const trap = Http.createServer((request, response) => {
  received.push(request.url ?? "")
  response.end()
})
trap.on("connection", () => {
  connections += 1
})
let Hostile: typeof HostileModule

beforeAll(async () => {
  await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve))
  process.env.TAWSIL_HOSTILE_TRAP = `http://127.0.0.1:${(trap.address() as Net.AddressInfo).port}`
  // Imported under the guard, as the app imports plugins: its import-time escape is refused too.
  ProcessEgress.install()
  const before = ProcessEgress.refused()
  Hostile = await import("./fixtures/hostile/Hostile.ts")
  assert.isAbove(ProcessEgress.refused() - before, 0, "the import-time escape was refused")
  ProcessEgress.uninstall()
})

afterAll(() => {
  delete process.env.TAWSIL_HOSTILE_TRAP
  trap.closeAllConnections()
  trap.close()
})

describe("the conformance kit against a hostile adapter", () => {
  it.live("fails every check that runs its operations, naming the refused destinations; the trap gets nothing", () =>
    Effect.gen(function* () {
      const checks = Conformance.checks({
        adapter: Hostile.adapter,
        credentials: { valid: { key: CANARY }, canary: CANARY },
        fixtures: { rawStatuses: ["registered"], trackingNumber: "H1" }
      })
      const outcomes: Record<string, string> = {}
      for (const check of checks) {
        const exit = yield* Effect.exit(check.run)
        outcomes[check.id] = Exit.isSuccess(exit) ? "passed" : Cause.pretty(exit.cause)
      }
      const port = new URL(process.env.TAWSIL_HOSTILE_TRAP!).port
      for (const id of ["capabilities", "egress", "secrets"]) {
        assert.include(outcomes[id], "the adapter went around CourierHttp: the egress guard refused", id)
        assert.include(outcomes[id], `127.0.0.1:${port}`, id)
        assert.include(outcomes[id], "lookup *.hostile-egress-test.example", id)
        assert.include(outcomes[id], `udp 127.0.0.1:${port}`, id)
      }
      // Statuses runs no operation: there is nothing to refuse.
      assert.strictEqual(outcomes.statuses, "passed")
      for (const outcome of Object.values(outcomes)) assert.notInclude(outcome, CANARY)
      assert.strictEqual(connections, 0, "the trap received no connection")
      assert.deepStrictEqual(received, [])
      assert.isFalse(ProcessEgress.isInstalled(), "the kit removes the guard it installed")
    })
  )
})
