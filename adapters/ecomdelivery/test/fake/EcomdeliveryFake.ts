/**
 * A loopback fake of E-COM Delivery's API, on the SDK's `FakeCourier`: a real `node:http` server on `127.0.0.1` that
 * speaks the API as documented (the same paths, bodies and status codes the adapter's wire schemas describe). It
 * keeps parcels in memory and accepts only the tokens it is given. `FakeCourier` keeps every request and plays the
 * misbehaviours the conformance kit needs (`misbehaveNext`: hang, reset, a status, an HTML page, a 429, any JSON);
 * only the courier is written here.
 *
 * Keep it honest: when the courier's documentation changes, change this fake first, then the adapter.
 */
import { FakeCourier } from "@tawsil/courier/testing"
import { Effect, type Scope } from "effect"

export interface EcomdeliveryFake extends FakeCourier.FakeCourier {
  /** Appends a raw status to a parcel's events (it must exist). */
  readonly addEvent: (tracking: string, status: string) => void
}

export interface Options {
  /** The API tokens it accepts; any other is answered 401. */
  readonly tokens: ReadonlyArray<string>
  /** A port of its own; a random free one by default. */
  readonly port?: number
}

/** Fees by destination wilaya; every wilaya is served at these. */
const DEFAULT_RATES = { home: 650, desk: 400, return: 200 }

const { json } = FakeCourier

/** Starts the fake for the scope. */
export const make = (options: Options): Effect.Effect<EcomdeliveryFake, never, Scope.Scope> =>
  Effect.gen(function* () {
    const parcels = new Map<string, Array<{ status: string; at: string }>>()
    // A minute between events, from a fixed start: the events of a parcel are always in order.
    let clock = Date.UTC(2026, 0, 5, 8, 0)
    const now = () => {
      clock += 60_000
      return new Date(clock).toISOString()
    }

    const fake = yield* FakeCourier.make({
      port: options.port,
      // The courier's error body, also for the misbehaviours FakeCourier plays (a 5xx, a 429).
      errorBody: (_status, message) => ({ error: message }),
      handle: ({ body, headers, method, path, query }, response) => {
        const token = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1]
        if (token === undefined || !options.tokens.includes(token)) {
          return json(response, 401, { error: "Unauthorized" })
        }
        if (method === "POST" && path === "/v1/parcels") {
          const parcel = body as { recipient?: { name?: unknown; wilaya?: unknown } } | undefined
          if (typeof parcel?.recipient?.name !== "string" || typeof parcel.recipient.wilaya !== "number") {
            return json(response, 422, { error: "recipient.name and recipient.wilaya are required" })
          }
          const tracking = `ECO-${String(parcels.size + 1).padStart(6, "0")}`
          parcels.set(tracking, [{ status: "registered", at: now() }])
          return json(response, 201, { tracking, status: "registered" })
        }
        const parcel = /^\/v1\/parcels\/([^/]+)\/(events|label)$/.exec(path)
        if (method === "GET" && parcel !== null) {
          const tracking = decodeURIComponent(parcel[1]!)
          const events = parcels.get(tracking)
          if (events === undefined) return json(response, 404, { error: "Unknown parcel" })
          if (parcel[2] === "events") return json(response, 200, { tracking, events })
          response.writeHead(200, { "content-type": "application/pdf" })
          return response.end(`%PDF-1.4\n% label of ${tracking}\n%%EOF\n`)
        }
        if (method === "GET" && path === "/v1/rates") {
          const to = Number(query.to)
          if (!Number.isInteger(to) || to < 1 || to > 69) return json(response, 422, { error: "Unknown wilaya" })
          return json(response, 200, DEFAULT_RATES)
        }
        return json(response, 404, { error: "Not found" })
      }
    })
    const courier: EcomdeliveryFake = {
      ...fake,
      addEvent: (tracking, status) => {
        const events = parcels.get(tracking)
        if (events === undefined) throw new Error(`the fake has no parcel ${tracking}`)
        events.push({ status, at: now() })
      }
    }
    return courier
  })

/** Starts the fake outside Effect (a script, `serve.ts`), until `close()`. */
export const start = (options: Options) => FakeCourier.run(make(options))
