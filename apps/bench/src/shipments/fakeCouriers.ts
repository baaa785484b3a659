/**
 * The couriers the issue 30 benchmarks talk to: real loopback servers answering what the adapters read, as their
 * documentation gives it (the adapters' own fakes, `adapters/ecotrack/test/fake/EcotrackFake.ts` and
 * `adapters/yalidine/test/fake/YalidineFake.ts`, keep every parcel and every request in memory; at 100 000 parcels the
 * fake would be measured, not the app).
 *
 * - Ecotrack (`ecotrack`): `GET /api/v1/validate/token` answers `VALID_TOKEN` for any token (accounts are created
 *   through the API, which checks them), and `GET /api/v1/get/trackings/info?trackings[i]=…` answers after `delayMs`,
 *   for every number asked, the parcel keyed by its tracking number with the same activity: received by the carrier,
 *   picked up, accepted by the carrier (in transit). Calls and parcels asked are counted.
 * - Yalidine (`yalidine`): `GET /v1/wilayas/?page_size=1`, the credential check of the Yalidine engine, answers one
 *   row; pushes come from the load generator, not from here.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface EcotrackFake {
  readonly origin: string
  /** Batch reads answered, and the tracking numbers they asked for. */
  readonly counts: () => { readonly calls: number; readonly parcels: number; readonly inFlightMax: number }
  readonly close: () => Promise<void>
}

/** The Algiers wall-clock date and time (UTC+01:00 all year) of an epoch time, as Ecotrack writes activity. */
const algiers = (epochMillis: number) => {
  const iso = new Date(epochMillis + 3_600_000).toISOString()
  return { date: iso.slice(0, 10), time: iso.slice(11, 19) }
}

const listen = (server: Http.Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
  )

const closing = (server: Http.Server) => () =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

const json = (response: Http.ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  response.end(text)
}

/**
 * The activity every parcel shows: two days ago received and picked up, yesterday accepted by the carrier — later
 * than the seeded shipments' status (a week ago), so the first read moves each of them to `in_transit`.
 */
export const ecotrackActivity = (now: number) => [
  { ...algiers(now - 2 * 86_400_000), status: "order_information_received_by_carrier", station: "" },
  { ...algiers(now - 2 * 86_400_000 + 5 * 3_600_000), status: "picked", station: "Alger" },
  { ...algiers(now - 86_400_000), status: "accepted_by_carrier", station: "Alger" }
]

export const ecotrack = async (options: { readonly delayMs: number }): Promise<EcotrackFake> => {
  const activity = ecotrackActivity(Date.now())
  let calls = 0
  let parcels = 0
  let inFlight = 0
  let inFlightMax = 0
  const server = Http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://fake")
    if (request.method === "GET" && url.pathname === "/api/v1/validate/token") {
      return json(response, 200, { success: true, message: "VALID_TOKEN" })
    }
    if (request.method !== "GET" || url.pathname !== "/api/v1/get/trackings/info") {
      return json(response, 404, { message: `The route ${url.pathname.slice(1)} could not be found.` })
    }
    const asked = [...url.searchParams].filter(([name]) => /^trackings\[\d*\]$/.test(name)).map(([, value]) => value)
    if (asked.length === 0 || asked.length > 100) {
      return json(response, 422, {
        message: "The given data was invalid.",
        errors: { trackings: ["Le champ trackings doit avoir entre 1 et 100 éléments."] }
      })
    }
    calls += 1
    parcels += asked.length
    inFlight += 1
    inFlightMax = Math.max(inFlightMax, inFlight)
    setTimeout(() => {
      inFlight -= 1
      json(response, 200, Object.fromEntries(asked.map((tracking) => [tracking, { tracking, activity }])))
    }, options.delayMs)
  })
  server.keepAliveTimeout = 60_000
  const origin = await listen(server)
  return { origin, counts: () => ({ calls, parcels, inFlightMax }), close: closing(server) }
}

/** Yalidine's credential check only (`GET /v1/wilayas/`): one row, as the engine's documentation shows it. */
export const yalidine = async (): Promise<{ readonly origin: string; readonly close: () => Promise<void> }> => {
  const server = Http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://fake")
    if (request.method === "GET" && url.pathname === "/v1/wilayas/") {
      return json(response, 200, { has_more: true, total_data: 58, data: [{ id: 1, name: "Adrar" }] })
    }
    json(response, 404, { error: { message: "Not found" } })
  })
  return { origin: await listen(server), close: closing(server) }
}
