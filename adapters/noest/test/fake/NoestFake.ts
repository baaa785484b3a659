/**
 * A loopback NOEST Express: a real HTTP server on 127.0.0.1 (random port) speaking the Laravel API under
 * `/api/public/` as the research notes document it — and only as they document it; nothing here was checked against
 * the live platform.
 *
 * - Auth: the token as `api_token` (body of a POST, query of a GET) or `Authorization: Bearer` — both, if both are
 *   sent, must agree; none or an unknown one: 401 `{"message":"Unauthenticated."}`. Every POST needs `user_guid` in
 *   its body (422 "Le champ user guid est obligatoire." without it); a GUID that is not the token's account: 403.
 * - `POST create/order`: the PDF's rules (422 with `errors`), a wilaya NOEST does not serve refused; else
 *   `{success:true, tracking}`, the parcel unvalidated, its only event `upload`.
 * - `POST valid/order {tracking}`: validates once (again: `{success:false}`), adding `customer_validation`. Until
 *   then the label is refused: the courier does not see the parcel.
 * - `POST get/trackings/info {trackings:[…]}`: an object keyed by each known tracking number, with `OrderInfo` and
 *   the `activity` events (`date` as Laravel prints it, Algiers time); unknown numbers are simply absent.
 * - `GET fees`: `{tarifs:{delivery:{"16":{tarif, tarif_stopdesk}}, return:{…}}}`, amounts as strings.
 * - `GET get/order/label?tracking=`: the PDF; 422 for an unknown or unvalidated parcel.
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, a refusal, any JSON, a refusal that quotes the caller's token, or redirect the label elsewhere.
 */
import * as Http from "node:http"
import { Context, Effect, Layer } from "effect"

export const TOKEN = "fake-noest-token-3c9e1a7f5b2d8406"
export const GUID = "NOEST-GUID-4F2A9C"

/** Wilayas the fake does not serve (an idx note: NOEST's wilaya list has no ids 50, 54, 56). */
export const UNSERVED: ReadonlyArray<number> = [50, 54, 56]
/** Served, but with no stop desk. */
export const NO_DESK: ReadonlyArray<number> = [1, 11, 33, 37]

/** The fake's tariff, in DZD: [home, stopdesk or null, return home, return stopdesk or null]. */
export const tariff = (wilaya: number): readonly [number, number | null, number, number | null] => {
  const home = wilaya === 16 ? 450 : NO_DESK.includes(wilaya) ? 1100 : 700
  const desk = NO_DESK.includes(wilaya) ? null : home - 250
  return [home, desk, 200, desk === null ? null : 150]
}

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body, or `undefined` when none was sent. */
  readonly body: unknown
}

export type Misbehaviour =
  | { readonly kind: "hang" }
  | { readonly kind: "reset" }
  | { readonly kind: "status"; readonly status: number }
  | { readonly kind: "html" }
  | { readonly kind: "rateLimited"; readonly retryAfter?: string }
  | { readonly kind: "refuse"; readonly message: string }
  | { readonly kind: "json"; readonly status: number; readonly body: unknown }
  | { readonly kind: "echoToken" }
  | { readonly kind: "redirectLabel" }

export interface Event {
  readonly event_key: string
  readonly date: string
}

export interface Parcel {
  readonly tracking: string
  readonly fields: Readonly<Record<string, unknown>>
  validated: boolean
  readonly activity: Array<Event>
}

export interface Fake {
  readonly origin: string
  readonly requests: ReadonlyArray<RecordedRequest>
  readonly parcels: ReadonlyMap<string, Parcel>
  readonly misbehaveNext: (misbehaviour: Misbehaviour, path?: string) => void
  /** Appends an event to a parcel, stamped with the fake's clock. */
  readonly addEvent: (tracking: string, eventKey: string) => void
  /** The Algiers wall-clock date and time the fake stamps events with. */
  readonly setClock: (date: string, time: string) => void
}

/** The fake's accounts: each token with its user GUID. */
export type Accounts = ReadonlyArray<readonly [token: string, guid: string]>

export class NoestFake extends Context.Service<NoestFake, Fake>()("@tawsil/adapter-noest/test/NoestFake") {
  static readonly layer = (options: { readonly accounts?: Accounts } = {}) =>
    Layer.effect(
      NoestFake,
      Effect.acquireRelease(start(options.accounts ?? [[TOKEN, GUID]]), ({ close }) => close).pipe(
        Effect.map(({ fake }) => fake)
      )
    )
}

const json = (response: Http.ServerResponse, status: number, body: unknown, headers: Http.OutgoingHttpHeaders = {}) => {
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(body))
}

const invalid = (errors: Record<string, Array<string>>) => ({ message: Object.values(errors)[0]?.[0] ?? "", errors })

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined

/** The create rules of the PDF spec (research §1.6 "Create fields"), with Laravel's French messages. */
const validateCreate = (fields: Readonly<Record<string, unknown>>): Record<string, Array<string>> => {
  const errors: Record<string, Array<string>> = {}
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message]
  }
  for (const field of [
    "client",
    "phone",
    "adresse",
    "wilaya_id",
    "commune",
    "montant",
    "produit",
    "type_id",
    "poids"
  ]) {
    if ((text(fields[field]) ?? "").trim() === "") add(field, `Le champ ${field.replace("_", " ")} est obligatoire.`)
  }
  for (const field of ["phone", "phone_2"]) {
    const value = text(fields[field])
    if (value !== undefined && value !== "" && !/^\d{9,10}$/.test(value)) {
      add(field, `Le champ ${field} doit contenir entre 9 et 10 chiffres.`)
    }
  }
  const wilaya = text(fields.wilaya_id)
  if (wilaya !== undefined && wilaya !== "") {
    if (!(/^\d+$/.test(wilaya) && Number(wilaya) >= 1 && Number(wilaya) <= 58)) {
      add("wilaya_id", "La valeur de wilaya id doit être comprise entre 1 et 58.")
    } else if (UNSERVED.includes(Number(wilaya))) {
      add("wilaya_id", "La wilaya sélectionnée n'est pas desservie.")
    }
  }
  for (const field of ["montant", "poids"]) {
    const value = text(fields[field])
    if (value !== undefined && value !== "" && !Number.isFinite(Number(value))) {
      add(field, `Le champ ${field} doit être un nombre.`)
    }
  }
  const type = text(fields.type_id)
  if (type !== undefined && type !== "" && !["1", "2", "3"].includes(type)) {
    add("type_id", "Le champ type id sélectionné est invalide.")
  }
  for (const field of ["stop_desk", "can_open"]) {
    const value = text(fields[field])
    if (value !== undefined && !["0", "1"].includes(value)) add(field, `Le champ ${field} sélectionné est invalide.`)
  }
  if (text(fields.stop_desk) === "1" && (text(fields.station_code) ?? "") === "") {
    add("station_code", "Le champ station code est obligatoire quand stop desk est 1.")
  }
  return errors
}

const routes: Readonly<Record<string, string>> = {
  "/api/public/create/order": "POST",
  "/api/public/valid/order": "POST",
  "/api/public/get/trackings/info": "POST",
  "/api/public/fees": "GET",
  "/api/public/get/order/label": "GET"
}

const start = (accounts: Accounts) =>
  Effect.callback<{ readonly fake: Fake; readonly close: Effect.Effect<void> }>((resume) => {
    const requests: Array<RecordedRequest> = []
    const parcels = new Map<string, Parcel>()
    const queue: Array<{ readonly misbehaviour: Misbehaviour; readonly path: string | undefined }> = []
    let clock = { date: "2026-04-18", time: "19:45:06" }
    let issued = 0
    const stamp = () => `${clock.date} ${clock.time}`

    const misbehave = (
      misbehaviour: Misbehaviour,
      request: Http.IncomingMessage,
      response: Http.ServerResponse,
      token: string
    ) => {
      switch (misbehaviour.kind) {
        case "hang":
          return
        case "reset":
          return request.socket.destroy()
        case "status":
          return json(response, misbehaviour.status, { message: "Server Error" })
        case "html":
          response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
          return response.end("<!DOCTYPE html><html><body><h1>Maintenance en cours</h1></body></html>")
        case "rateLimited":
          return json(
            response,
            429,
            { message: "Too Many Attempts." },
            misbehaviour.retryAfter === undefined ? {} : { "retry-after": misbehaviour.retryAfter }
          )
        case "refuse":
          return json(response, 200, { success: false, message: misbehaviour.message })
        case "json":
          return json(response, misbehaviour.status, misbehaviour.body)
        case "echoToken":
          return json(response, 422, invalid({ tracking: [`Le colis n'appartient pas au compte du jeton ${token}.`] }))
        case "redirectLabel":
          response.writeHead(302, {
            location: `https://noest-labels.s3.eu-west-3.amazonaws.com/label.pdf?X-Amz-Credential=AKIAFAKE&X-Amz-Signature=0f${token.length}`
          })
          return response.end()
      }
    }

    const route = (
      method: string,
      path: string,
      fields: Readonly<Record<string, unknown>>,
      response: Http.ServerResponse
    ) => {
      if (routes[path] === undefined) {
        return json(response, 404, { message: `The route ${path.slice(1)} could not be found.` })
      }
      if (routes[path] !== method) {
        return json(response, 405, {
          message: `The ${method} method is not supported for route ${path.slice(1)}. Supported methods: ${routes[path]}.`
        })
      }
      const tracking = text(fields.tracking) ?? ""
      switch (path) {
        case "/api/public/create/order": {
          const errors = validateCreate(fields)
          if (Object.keys(errors).length > 0) return json(response, 422, invalid(errors))
          issued += 1
          const created = `NOE${String(issued).padStart(9, "0")}FK`
          parcels.set(created, {
            tracking: created,
            fields,
            validated: false,
            activity: [{ event_key: "upload", date: stamp() }]
          })
          return json(response, 200, { success: true, tracking: created, reference: fields.reference ?? null })
        }
        case "/api/public/valid/order": {
          const parcel = parcels.get(tracking)
          if (parcel === undefined)
            return json(response, 422, invalid({ tracking: ["Le tracking sélectionné est invalide."] }))
          if (parcel.validated) return json(response, 200, { success: false, message: "La commande est déjà validée." })
          parcel.validated = true
          parcel.activity.push({ event_key: "customer_validation", date: stamp() })
          return json(response, 200, { success: true })
        }
        case "/api/public/get/trackings/info": {
          const asked = fields.trackings
          if (!Array.isArray(asked) || asked.length === 0) {
            return json(response, 422, invalid({ trackings: ["Le champ trackings est obligatoire."] }))
          }
          const known = asked.flatMap((item) => {
            const parcel = typeof item === "string" ? parcels.get(item) : undefined
            return parcel === undefined ? [] : [parcel]
          })
          // PHP encodes an empty associative array as a list.
          if (known.length === 0) return json(response, 200, [])
          return json(
            response,
            200,
            Object.fromEntries(
              known.map((parcel) => [
                parcel.tracking,
                {
                  OrderInfo: {
                    tracking: parcel.tracking,
                    reference: parcel.fields.reference ?? null,
                    client: parcel.fields.client,
                    phone: parcel.fields.phone,
                    adresse: parcel.fields.adresse,
                    wilaya_id: Number(parcel.fields.wilaya_id),
                    commune: parcel.fields.commune,
                    montant: Number(parcel.fields.montant),
                    created_at: parcel.activity[0]?.date
                  },
                  recipientName: parcel.fields.client,
                  shippedBy: "Boutique Test",
                  originCity: 16,
                  destLocationCity: Number(parcel.fields.wilaya_id),
                  activity: parcel.activity.map((event) => ({
                    event_key: event.event_key,
                    event: event.event_key.replace(/_/g, " "),
                    causer: "NOEST",
                    "badge-class": "badge-primary",
                    by: null,
                    name: null,
                    driver: null,
                    fdr: null,
                    date: event.date
                  }))
                }
              ])
            )
          )
        }
        case "/api/public/fees": {
          const served = Array.from({ length: 58 }, (_, i) => i + 1).filter((w) => !UNSERVED.includes(w))
          return json(response, 200, {
            tarifs: {
              delivery: Object.fromEntries(
                served.map((wilaya) => {
                  const [home, desk] = tariff(wilaya)
                  return [
                    String(wilaya),
                    { wilaya_id: wilaya, tarif: String(home), tarif_stopdesk: desk === null ? null : String(desk) }
                  ]
                })
              ),
              return: Object.fromEntries(
                served.map((wilaya) => {
                  const [, , home, desk] = tariff(wilaya)
                  return [String(wilaya), { tarif: String(home), tarif_stopdesk: desk === null ? null : String(desk) }]
                })
              )
            }
          })
        }
        default: {
          const parcel = parcels.get(tracking)
          if (parcel === undefined)
            return json(response, 422, invalid({ tracking: ["Le tracking sélectionné est invalide."] }))
          if (!parcel.validated) {
            return json(response, 422, invalid({ tracking: ["La commande n'est pas encore validée."] }))
          }
          response.writeHead(200, { "content-type": "application/pdf" })
          response.end(`%PDF-1.4\n% bordereau NOEST ${parcel.tracking}\n%%EOF\n`)
        }
      }
    }

    const server = Http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const url = new URL(request.url ?? "/", "http://127.0.0.1")
        const query = Object.fromEntries(url.searchParams)
        const raw = Buffer.concat(chunks).toString("utf8")
        let body: unknown
        try {
          body = raw === "" ? undefined : JSON.parse(raw)
        } catch {
          return json(response, 400, { message: "Malformed JSON." })
        }
        const headers = Object.fromEntries(
          Object.entries(request.headers).map(([name, value]) => [
            name,
            Array.isArray(value) ? value.join(", ") : (value ?? "")
          ])
        )
        const method = request.method ?? ""
        requests.push({ method, path: url.pathname, query, headers, body })

        const fields: Record<string, unknown> = {
          ...query,
          ...(typeof body === "object" && body !== null && !Array.isArray(body) ? body : {})
        }
        const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1]
        const given = text(fields.api_token)
        const token = bearer ?? given ?? ""

        const planned = queue.findIndex((entry) => entry.path === undefined || entry.path === url.pathname)
        if (planned >= 0) return misbehave(queue.splice(planned, 1)[0]!.misbehaviour, request, response, token)

        const account = accounts.find(([known]) => known === token)
        const agree = bearer === undefined || given === undefined || bearer === given
        if (!agree || account === undefined) return json(response, 401, { message: "Unauthenticated." })
        const guid = text(fields.user_guid)
        if (method === "POST" && (guid ?? "") === "") {
          return json(response, 422, invalid({ user_guid: ["Le champ user guid est obligatoire."] }))
        }
        if (guid !== undefined && guid !== account[1])
          return json(response, 403, { message: "This action is unauthorized." })
        delete fields.api_token
        delete fields.user_guid
        return route(method, url.pathname, fields, response)
      })
    })

    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const fake: Fake = {
        origin: `http://127.0.0.1:${port}`,
        requests,
        parcels,
        misbehaveNext: (misbehaviour, path) => queue.push({ misbehaviour, path }),
        addEvent: (tracking, eventKey) => parcels.get(tracking)?.activity.push({ event_key: eventKey, date: stamp() }),
        setClock: (date, time) => {
          clock = { date, time }
        }
      }
      const close = Effect.callback<void>((done) => {
        server.closeAllConnections()
        server.close(() => done(Effect.void))
      })
      resume(Effect.succeed({ fake, close }))
    })
  })
