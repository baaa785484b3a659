import * as Dns from "node:dns"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as NetRuntime from "node:net"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ProcessEgress from "../src/ProcessEgress.ts"

/** A loopback listener nothing may reach: it counts connections and keeps every request line it gets. */
const startTrap = () =>
  new Promise<{ origin: string; connections: () => number; lines: Array<string>; close: () => void }>((resolve) => {
    let connections = 0
    const lines: Array<string> = []
    const server = Http.createServer((request, response) => {
      lines.push(`${request.method} ${request.url}`)
      response.end("trapped")
    })
    server.on("connection", () => {
      connections += 1
    })
    server.listen(0, "127.0.0.1", () =>
      resolve({
        origin: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}`,
        connections: () => connections,
        lines,
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      })
    )
  })

const CANARY = "egress-canary-0b7e4d2a91"

type Trap = Awaited<ReturnType<typeof startTrap>>
let trap: Trap
const reports: Array<string> = []

beforeAll(async () => {
  trap = await startTrap()
  ProcessEgress.install({
    allow: [{ host: "db.internal", port: 5432 }],
    report: (attempt, refused) => reports.push(`${ProcessEgress.describe(attempt)} #${refused}`)
  })
})

afterAll(() => {
  ProcessEgress.uninstall()
  trap.close()
})

const newAttempts = (before: number) => ProcessEgress.attempts().slice(before).map(ProcessEgress.describe)

const get = (url: string) =>
  new Promise<string>((resolve) => {
    // A fresh connection each time: the global agent would hand back a kept-alive socket, which is no new connection.
    Http.get(url, { agent: false }, (response) => {
      response.resume()
      resolve(`status ${response.statusCode}`)
    }).on("error", (error: NodeJS.ErrnoException) => resolve(`${error.name} ${error.code}`))
  })

describe("ProcessEgress", () => {
  it.live("refuses fetch and http to an address nobody permitted, before a byte leaves", () =>
    Effect.gen(function* () {
      const before = ProcessEgress.refused()
      const fetched = yield* Effect.promise(() =>
        fetch(`${trap.origin}/x?key=${CANARY}`).then(
          () => "reached",
          (error: { cause?: NodeJS.ErrnoException }) => `${error.cause?.name} ${error.cause?.code}`
        )
      )
      assert.strictEqual(fetched, "EgressRefused ECONNREFUSED")
      assert.strictEqual(
        yield* Effect.promise(() => get(`${trap.origin}/y?key=${CANARY}`)),
        "EgressRefused ECONNREFUSED"
      )
      const port = new URL(trap.origin).port
      assert.deepStrictEqual(newAttempts(before), [`127.0.0.1:${port}`, `127.0.0.1:${port}`])
      assert.strictEqual(trap.connections(), 0)
      // Reported once per destination, by host and port only.
      assert.lengthOf(
        reports.filter((line) => line.startsWith(`127.0.0.1:${port} `)),
        1
      )
      for (const line of reports) assert.notInclude(line, CANARY)
    })
  )

  it.live("refuses lookups of outside names, by every dns API; lookup() of an IP literal asks nobody and passes", () =>
    Effect.gen(function* () {
      const before = ProcessEgress.refused()
      const name = "outside.egress-test.example"
      const outcomes = yield* Effect.promise(() =>
        Promise.all([
          new Promise((resolve) => Dns.lookup(name, (error) => resolve(error?.code))),
          Dns.promises.lookup(name).then(
            () => "resolved",
            (error: NodeJS.ErrnoException) => error.code
          ),
          new Promise((resolve) => Dns.resolve4(name, (error) => resolve(error?.code))),
          new Dns.promises.Resolver().resolveTxt(name).then(
            () => "resolved",
            (error: NodeJS.ErrnoException) => error.code
          ),
          new Promise((resolve) => Dns.lookup("127.0.0.1", (error, address) => resolve(error?.code ?? address))),
          // A reverse lookup asks a DNS server about the address: four bytes of the plugin's choosing.
          new Promise((resolve) => Dns.reverse("10.1.2.3", (error) => resolve(error?.code)))
        ])
      )
      assert.deepStrictEqual(outcomes, ["ENOTFOUND", "ENOTFOUND", "ENOTFOUND", "ENOTFOUND", "127.0.0.1", "ENOTFOUND"])
      assert.deepStrictEqual(newAttempts(before), [...Array(4).fill("lookup *.egress-test.example"), "lookup 10.1.2.3"])
    })
  )

  it.live("a permit lets exactly its host and port through, and ends when the socket is opened", () =>
    Effect.gen(function* () {
      const port = Number(new URL(trap.origin).port)
      const permitted = yield* Effect.promise(
        () =>
          new Promise<string>((resolve) => {
            ProcessEgress.permit({ host: "127.0.0.1", port }, () =>
              Http.get(`${trap.origin}/permitted`, { agent: false }, (response) => {
                response.resume()
                // A callback that outlives the permit holds nothing: not even the same destination.
                get(`${trap.origin}/after`).then((late) => resolve(`status ${response.statusCode}, then ${late}`))
              })
            )
          })
      )
      assert.strictEqual(permitted, "status 200, then EgressRefused ECONNREFUSED")
      const elsewhere = yield* Effect.promise(() =>
        ProcessEgress.permit({ host: "127.0.0.1", port: port + 1 }, () => get(`${trap.origin}/wrong-port`))
      )
      assert.strictEqual(elsewhere, "EgressRefused ECONNREFUSED")
      // A permit to look a name up opens no connection to it.
      const lookupOnly = yield* Effect.promise(() =>
        ProcessEgress.permit({ host: "127.0.0.1" }, () => get(`${trap.origin}/lookup-only`))
      )
      assert.strictEqual(lookupOnly, "EgressRefused ECONNREFUSED")
      assert.deepStrictEqual(trap.lines, ["GET /permitted"])
      trap.lines.length = 0
    })
  )

  it.live("the static allow-list (the database, Redis) needs no permit", () =>
    Effect.gen(function* () {
      const before = ProcessEgress.refused()
      // Allowed: the lookup and the connection are let through (and fail on their own: there is no such host).
      const code = yield* Effect.promise(
        () =>
          new Promise<string | undefined>((resolve) => {
            const socket = new NetRuntime.Socket()
            socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code))
            socket.connect(5432, "db.internal")
          })
      )
      assert.notStrictEqual(code, "ECONNREFUSED")
      assert.deepStrictEqual(newAttempts(before), [])
    })
  )

  it.live("the hostile plugin's escapes, at import and in an operation, reach nothing", () =>
    Effect.gen(function* () {
      const before = ProcessEgress.refused()
      const connections = trap.connections()
      process.env.TAWSIL_HOSTILE_TRAP = trap.origin
      const hostile = yield* Effect.promise(() => import("../../courier/test/fixtures/hostile/Hostile.ts"))
      const atImport = newAttempts(before)
      yield* Effect.promise(() => hostile.breakOut("rates", CANARY))
      const port = new URL(trap.origin).port
      const once = [
        `127.0.0.1:${port}`,
        `127.0.0.1:${port}`,
        `127.0.0.1:${port}`,
        `127.0.0.1:${port}`,
        `127.0.0.1:${port}`,
        `udp 127.0.0.1:${port}`
      ]
      // Two lookups (one with the canary as a label), both refused and kept as the outside name's last two labels.
      assert.sameMembers(
        atImport.filter((attempt) => !attempt.startsWith("lookup ")),
        once
      )
      assert.lengthOf(
        atImport.filter((attempt) => attempt.startsWith("lookup ")),
        2
      )
      assert.lengthOf(newAttempts(before), atImport.length * 2)
      assert.strictEqual(trap.connections(), connections)
      assert.deepStrictEqual(trap.lines, [])
    })
  )
})
