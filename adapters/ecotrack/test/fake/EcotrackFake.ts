/**
 * A loopback Ecotrack tenant: a real HTTP server on 127.0.0.1 (random port) speaking the `/api/v1/…` API as the
 * research notes and the platform's documentation (as issue 34 replays it) describe it; nothing here was checked
 * against a live tenant.
 *
 * - Auth: `Authorization: Bearer <token>` or `?api_token=` (both, if both are sent, must agree); else 401
 *   `{"message":"Unauthenticated."}`.
 * - Every token may make 50 requests a minute (the documented limit; Laravel's throttle, a window from the token's
 *   first request): past it, 429 `{"message":"Too Many Attempts."}` with `Retry-After`. The fake's clock is real time
 *   unless a test gives it another (`now`); every request's time is kept (`arrivals`).
 * - `POST create/order` (JSON body and/or query string): Laravel-style validation (422 with `errors`; `adresse` is
 *   required, every text at most 255 characters), then 200 `{success:false, error:10002}` for a wilaya the tenant
 *   does not serve, else `{success:true, tracking}`.
 * - `POST create/orders` (`{orders:{"0":{…},…}}`, 1 to 100): each order validated and created as by `create/order`,
 *   its result under its reference in `{results:{<reference>:{success,tracking}|{field:[errors]}}}`.
 * - `POST valid/order?tracking=&ask_collection=`: validates once (again: 10001). Only then does the parcel get its
 *   first activity, `order_information_received_by_carrier`, and the order status "Prêt à expédier".
 * - `GET get/tracking/info?tracking=`: the order status (its label) and the activity (empty before validation);
 *   unknown tracking: 422.
 * - `GET get/order/label?tracking=`: the label as raw PDF bytes; unknown tracking: 422.
 * - `GET get/fees`: the tariff below, amounts as strings in `livraison`, numbers in `retours`; a wilaya without a
 *   desk has `tarif_stopdesk: "0"`, as in the documented data.
 * - `DELETE delete/order?tracking=`: deletes an order not yet validated (`{success:true}`); a validated one is
 *   refused with 10001 "Commande non modifiable"; unknown tracking: 422.
 * - `GET get/trackings/info?trackings[]=…` (≤ 100; `trackings[0]=…` too, as Laravel reads both): the parcels keyed
 *   by tracking number, each with its order status (label), its record (`OrderInfo.created_at`) and its activity.
 *   One unknown number refuses the whole call with 422, naming it (`errors: { "trackings.3": […] }`, the documented
 *   error); none known: 404 "Trackings non trouvés".
 * - `GET get/communes?wilaya_id=`: an object keyed by index of `{nom, wilaya_id, code_postal, has_stop_desk}`.
 * - `GET validate/token?api_token=`: `VALID_TOKEN`, or `{success:false, message:"INVALID_TOKEN"}` (the token is read
 *   from the query only, as the platform does).
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, a refusal, any JSON, or a refusal that quotes the caller's token; `hold` leaves every request it
 * accepts unanswered, however often it is sent again, until the test lets go (`dropHeld` cuts the held connections).
 */
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"

export const TOKEN = "fake-token-7f3a9c2e5b8d1f40"

/** Wilayas the fake tenant does not serve (deep south). */
export const UNSERVED: ReadonlyArray<number> = [33, 50, 54, 56]
/** Served, but with no stop desk. */
export const NO_DESK: ReadonlyArray<number> = [1, 11, 37, 49, 52, 53, 58]

/** A commune as the fake tenant lists it: its name, and its desk's station code when it has one. */
export interface Commune {
  readonly nom: string
  readonly wilaya: number
  readonly station: string | undefined
}

const knownCommunes: ReadonlyArray<Commune> = [
  { nom: "Alger Centre", wilaya: 16, station: "16001" },
  { nom: "Bab Ezzouar", wilaya: 16, station: "16020" },
  { nom: "Hydra", wilaya: 16, station: undefined },
  { nom: "Bordj El Kiffan", wilaya: 16, station: "16030" },
  { nom: "Oran", wilaya: 31, station: "31001" },
  { nom: "Bir El Djir", wilaya: 31, station: undefined }
]

/** The tenant's communes: a few real ones where tests look closely, elsewhere one per served wilaya. */
export const COMMUNES: ReadonlyArray<Commune> = Array.from({ length: 58 }, (_, i) => i + 1)
  .filter((wilaya) => !UNSERVED.includes(wilaya))
  .flatMap((wilaya) => {
    const listed = knownCommunes.filter((commune) => commune.wilaya === wilaya)
    return listed.length > 0
      ? listed
      : [
          {
            nom: `Chef-lieu ${wilaya}`,
            wilaya,
            station: NO_DESK.includes(wilaya) ? undefined : `${wilaya}001`
          }
        ]
  })

/** The fake's tariff, in DZD: [home, stopdesk or null, return home, return stopdesk or null]. */
export const tariff = (wilaya: number): readonly [number, number | null, number, number | null] => {
  const home = wilaya === 16 ? 400 : NO_DESK.includes(wilaya) ? 1200 : 650
  const desk = NO_DESK.includes(wilaya) ? null : home - 200
  return [home, desk, 250, desk === null ? null : 200]
}

export type RecordedRequest = FakeCourier.Request

/** Ecotrack's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own =
  | { readonly kind: "refuse"; readonly message: string; readonly error?: number }
  | { readonly kind: "echoToken" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface ActivityRow {
  readonly date: string
  readonly time: string
  readonly status: string
  readonly station: string
}

export interface Parcel {
  readonly tracking: string
  readonly fields: Readonly<Record<string, unknown>>
  validated: boolean
  askCollection: string | undefined
  readonly activity: Array<ActivityRow>
  /** The order status as the tracking answers word it (the tenant's label): "Prêt à expédier", "Suspendus", … */
  status: string
  /** When the order was made, Algiers wall-clock time (`OrderInfo.created_at`). */
  readonly createdAt: string
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly parcels: ReadonlyMap<string, Parcel>
  /**
   * Appends an activity to a parcel, stamped with the fake's clock, and makes it the order's status. A parcel the
   * carrier moves has been validated: one that was not is validated first.
   */
  readonly addActivity: (tracking: string, status: string) => void
  /** Sets a parcel's order status, as the tracking answers word it ("Suspendus"), without a new activity. */
  readonly setStatus: (tracking: string, status: string) => void
  /** The Algiers wall-clock date and time the fake stamps activity with. */
  readonly setClock: (date: string, time: string) => void
  /** The time of every request the fake received, by its clock (`Options.now`), oldest first. */
  readonly arrivals: ReadonlyArray<number>
  /**
   * Leaves every request `held` accepts hanging (recorded, never answered), however often it is sent again, until
   * called with `undefined`; unlike `misbehaveNext`'s one hang, a caller that gives up and asks again is held too.
   */
  readonly hold: (held: ((request: RecordedRequest) => boolean) | undefined) => void
  /** The held requests whose connections are still open. */
  readonly holding: () => number
  /** Drops the held requests' connections: their callers see the connection cut. */
  readonly dropHeld: () => void
}

export interface Options {
  readonly tokens?: ReadonlyArray<string>
  /**
   * Orders on the account that were created but never validated (as a create whose `valid/order` failed leaves
   * them), by tracking number: the ones `delete/order` still deletes.
   */
  readonly pending?: ReadonlyArray<string>
  /** The fake's clock for its rate limit, in milliseconds: real time unless a test gives its own. */
  readonly now?: () => number
  /** Requests a minute per token before the 429: the documented 50 unless a test raises it. */
  readonly perMinute?: number
}

export class EcotrackFake extends Context.Service<EcotrackFake, Fake>()("@tawsil/adapter-ecotrack/test/EcotrackFake") {
  static readonly layer = (options: Options = {}) => Layer.effect(EcotrackFake, make(options))
}

/** Starts the fake on a random loopback port, accepting `tokens`; it stops when the scope closes. */
export const make = (options: Options = {}) =>
  start(options.tokens ?? [TOKEN], options.pending ?? [], options.now ?? Date.now, options.perMinute ?? 50)

const { json } = FakeCourier

const invalid = (errors: Record<string, Array<string>>) => ({ message: "The given data was invalid.", errors })

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined

/** The create rules of the documentation (research §1.2 "Create fields"), with Laravel's French messages. */
const validateCreate = (fields: Readonly<Record<string, unknown>>): Record<string, Array<string>> => {
  const errors: Record<string, Array<string>> = {}
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message]
  }
  for (const field of ["nom_client", "telephone", "adresse", "commune", "code_wilaya", "montant", "type"]) {
    if ((text(fields[field]) ?? "").trim() === "") add(field, `Le champ ${field} est obligatoire.`)
  }
  for (const field of ["reference", "nom_client", "adresse", "commune", "remarque", "produit", "boutique"]) {
    if ((text(fields[field]) ?? "").length > 255)
      add(field, `Le texte ${field} ne peut contenir plus de 255 caractères.`)
  }
  for (const field of ["telephone", "telephone_2"]) {
    const value = text(fields[field])
    if (value !== undefined && value !== "" && !/^\d{9,10}$/.test(value)) {
      add(field, `Le champ ${field} doit contenir entre 9 et 10 chiffres.`)
    }
  }
  const wilaya = text(fields.code_wilaya)
  if (wilaya !== undefined && wilaya !== "" && !(/^\d+$/.test(wilaya) && Number(wilaya) >= 1 && Number(wilaya) <= 58)) {
    add("code_wilaya", "La valeur de code_wilaya doit être comprise entre 1 et 58.")
  }
  for (const field of ["montant", "code_postal", "weight"]) {
    const value = text(fields[field])
    if (value !== undefined && value !== "" && !Number.isFinite(Number(value))) {
      add(field, `Le champ ${field} doit contenir un nombre.`)
    }
  }
  const type = text(fields.type)
  if (type !== undefined && type !== "" && !["1", "2", "3", "4"].includes(type)) {
    add("type", "Le champ type sélectionné est invalide.")
  }
  const stopDesk = text(fields.stop_desk)
  if (stopDesk !== undefined && !["0", "1"].includes(stopDesk))
    add("stop_desk", "Le champ stop_desk sélectionné est invalide.")
  return errors
}

/** The caller's token: `Authorization: Bearer`, else `?api_token=`. */
const bearerOf = (request: RecordedRequest) => /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1]

const start = (tokens: ReadonlyArray<string>, pending: ReadonlyArray<string>, now: () => number, perMinute: number) =>
  Effect.gen(function* () {
    let clock = { date: "2026-04-18", time: "19:45:06" }
    const parcels = new Map<string, Parcel>(
      pending.map((tracking) => [
        tracking,
        {
          tracking,
          fields: { nom_client: "Amina Benali", commune: "Bab Ezzouar", code_wilaya: "16" },
          validated: false,
          askCollection: undefined,
          activity: [],
          status: "En préparation",
          createdAt: `${clock.date} ${clock.time}`
        }
      ])
    )
    let issued = 0
    const arrivals: Array<number> = []
    let held: ((request: RecordedRequest) => boolean) | undefined
    const open = new Set<Http.ServerResponse>()
    /** Laravel's throttle: each token's window opens at its first request and lasts a minute. */
    const windows = new Map<string, { readonly start: number; count: number }>()
    const throttled = (token: string, response: Http.ServerResponse): boolean => {
      const at = now()
      const open = windows.get(token)
      const window = open === undefined || at >= open.start + 60_000 ? { start: at, count: 0 } : open
      windows.set(token, window)
      window.count += 1
      if (window.count <= perMinute) return false
      json(
        response,
        429,
        { message: "Too Many Attempts." },
        {
          "retry-after": String(Math.max(1, Math.ceil((window.start + 60_000 - at) / 1000))),
          "x-ratelimit-limit": String(perMinute),
          "x-ratelimit-remaining": "0"
        }
      )
      return true
    }

    const unknownTracking = (response: Http.ServerResponse) =>
      json(response, 422, invalid({ tracking: ["Le tracking sélectionné est invalide."] }))

    /** Ecotrack's own misbehaviours. */
    const misbehave = (misbehaviour: Misbehaviour, request: RecordedRequest, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "refuse":
          json(response, 200, {
            success: false,
            message: misbehaviour.message,
            ...(misbehaviour.error === undefined ? {} : { error: misbehaviour.error })
          })
          return true
        case "echoToken": {
          const token = bearerOf(request) ?? request.query.api_token ?? ""
          json(response, 422, invalid({ api_token: [`Le jeton ${token} n'est pas autorisé pour cette action.`] }))
          return true
        }
        default:
          return false
      }
    }

    /** A validated create: refused for a wilaya the tenant does not serve, else a parcel held unvalidated. */
    const createOne = (fields: Readonly<Record<string, unknown>>) => {
      if (UNSERVED.includes(Number(text(fields.code_wilaya)))) {
        return { success: false, error: 10002, message: "Pas de livraison pour la wilaya sélectionnée" }
      }
      issued += 1
      const tracking = `ECTFAK${String(issued).padStart(10, "0")}`
      parcels.set(tracking, {
        tracking,
        fields,
        validated: false,
        askCollection: undefined,
        activity: [],
        status: "En préparation",
        createdAt: `${clock.date} ${clock.time}`
      })
      return { success: true, tracking }
    }

    const route = (
      method: string,
      path: string,
      fields: Readonly<Record<string, unknown>>,
      response: Http.ServerResponse
    ) => {
      const endpoint = `${method} ${path}`
      if (endpoint === "POST /api/v1/create/order") {
        const errors = validateCreate(fields)
        if (Object.keys(errors).length > 0) return json(response, 422, invalid(errors))
        const made = createOne(fields)
        return json(response, 200, made)
      }
      if (endpoint === "POST /api/v1/create/orders") {
        // `{orders:{"0":{…},"1":{…}}}`, at most 100; each order's result under its reference: `{success, tracking}`,
        // its field errors (`{field:[errors]}`), or the business refusal of a single create.
        const orders = fields.orders
        if (typeof orders !== "object" || orders === null || Array.isArray(orders)) {
          return json(response, 422, invalid({ orders: ["Le champ orders doit être un objet."] }))
        }
        const entries = Object.values(orders as Record<string, unknown>)
        if (entries.length === 0 || entries.length > 100) {
          return json(response, 422, invalid({ orders: ["Le champ orders doit avoir entre 1 et 100 éléments."] }))
        }
        const results: Record<string, unknown> = {}
        for (const [index, entry] of entries.entries()) {
          const order = (typeof entry === "object" && entry !== null ? entry : {}) as Record<string, unknown>
          const errors = validateCreate(order)
          results[text(order.reference) ?? String(index)] = Object.keys(errors).length > 0 ? errors : createOne(order)
        }
        return json(response, 200, { results })
      }
      if (endpoint === "POST /api/v1/valid/order") {
        const parcel = parcels.get(text(fields.tracking) ?? "")
        if (parcel === undefined) return unknownTracking(response)
        if (parcel.validated)
          return json(response, 200, { success: false, error: 10001, message: "Commande non modifiable" })
        parcel.validated = true
        parcel.askCollection = text(fields.ask_collection)
        parcel.status = "Prêt à expédier"
        parcel.activity.push({ ...clock, status: "order_information_received_by_carrier", station: "" })
        return json(response, 200, { success: true, message: "Commande expedier avec succès" })
      }
      if (endpoint === "GET /api/v1/get/tracking/info") {
        const parcel = parcels.get(text(fields.tracking) ?? "")
        if (parcel === undefined) return unknownTracking(response)
        return json(response, 200, {
          recipientName: parcel.fields.nom_client,
          shippedBy: "Boutique Test",
          originCity: 16,
          destLocationCity: Number(text(parcel.fields.code_wilaya)),
          currentStation: "Alger",
          status: parcel.status,
          activity: parcel.validated ? parcel.activity : [],
          reasons: []
        })
      }
      if (endpoint === "GET /api/v1/get/order/label") {
        const parcel = parcels.get(text(fields.tracking) ?? "")
        if (parcel === undefined) return unknownTracking(response)
        response.writeHead(200, { "content-type": "application/pdf" })
        response.end(`%PDF-1.4\n% label ${parcel.tracking}\n%%EOF\n`)
        return
      }
      if (endpoint === "GET /api/v1/get/fees") {
        const served = Array.from({ length: 58 }, (_, i) => i + 1).filter((w) => !UNSERVED.includes(w))
        return json(response, 200, {
          livraison: served.map((wilaya_id) => {
            const [home, desk] = tariff(wilaya_id)
            return { wilaya_id, tarif: String(home), tarif_stopdesk: String(desk ?? 0) }
          }),
          pickup: [],
          echange: [],
          recouvrement: [],
          retours: served.map((wilaya_id) => {
            const [, , home, desk] = tariff(wilaya_id)
            return { wilaya_id, tarif: home, tarif_stopdesk: desk }
          }),
          poids: { seuil: 5, surcharge_par_kg: 50 }
        })
      }
      if (endpoint === "DELETE /api/v1/delete/order") {
        const tracking = text(fields.tracking) ?? ""
        const parcel = parcels.get(tracking)
        if (parcel === undefined) return unknownTracking(response)
        if (parcel.validated) {
          return json(response, 200, { success: false, error: 10001, message: "Commande non modifiable" })
        }
        parcels.delete(tracking)
        return json(response, 200, { success: true, message: "Commande supprimée" })
      }
      if (endpoint === "GET /api/v1/get/trackings/info") {
        const asked = Object.entries(fields)
          .filter(([name]) => /^trackings\[\d*\]$/.test(name))
          .map(([, value]) => text(value) ?? "")
        if (asked.length === 0)
          return json(response, 422, invalid({ trackings: ["Le champ trackings est obligatoire."] }))
        if (asked.length > 100) {
          return json(response, 422, invalid({ trackings: ["Le champ trackings ne peut avoir plus de 100 éléments."] }))
        }
        const unknown = asked.flatMap((tracking, index) => (parcels.has(tracking) ? [] : [index]))
        if (unknown.length === asked.length) return json(response, 404, { message: "Trackings non trouvés" })
        if (unknown.length > 0) {
          return json(
            response,
            422,
            invalid(
              Object.fromEntries(
                unknown.map((index) => [
                  `trackings.${index}`,
                  [`Le champ trackings.${index} sélectionné est invalide.`]
                ])
              )
            )
          )
        }
        return json(
          response,
          200,
          Object.fromEntries(
            asked.map((tracking) => {
              const parcel = parcels.get(tracking)!
              return [
                parcel.tracking,
                {
                  OrderInfo: { tracking: parcel.tracking, created_at: parcel.createdAt },
                  recipientName: parcel.fields.nom_client,
                  status: parcel.status,
                  activity: parcel.validated ? parcel.activity : []
                }
              ]
            })
          )
        )
      }
      if (endpoint === "GET /api/v1/get/communes") {
        const wilaya = text(fields.wilaya_id)
        const rows = COMMUNES.filter((commune) => wilaya === undefined || String(commune.wilaya) === wilaya)
        return json(
          response,
          200,
          Object.fromEntries(
            rows.map((commune, index) => [
              String(index),
              {
                nom: commune.nom,
                wilaya_id: commune.wilaya,
                code_postal: commune.station ?? `${commune.wilaya}999`,
                has_stop_desk: commune.station === undefined ? 0 : 1
              }
            ])
          )
        )
      }
      if (
        [
          "/api/v1/delete/order",
          "/api/v1/get/trackings/info",
          "/api/v1/get/communes",
          "/api/v1/validate/token",
          "/api/v1/create/order",
          "/api/v1/create/orders",
          "/api/v1/valid/order",
          "/api/v1/get/tracking/info",
          "/api/v1/get/fees",
          "/api/v1/get/order/label"
        ].includes(path)
      ) {
        return json(response, 405, { message: `The ${method} method is not supported for this route.` })
      }
      return json(response, 404, { message: `The route ${path.slice(1)} could not be found.` })
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (_status, message) => ({ message }),
      misbehave,
      handle: (request, response) => {
        if (held?.(request) === true) {
          open.add(response)
          response.once("close", () => open.delete(response))
          return
        }
        const { body, method, path, query } = request
        if (method === "GET" && path === "/api/v1/validate/token") {
          // The platform reads this one's token from the query only (research §1.2).
          const valid = query.api_token !== undefined && tokens.includes(query.api_token)
          return json(
            response,
            200,
            valid ? { success: true, message: "VALID_TOKEN" } : { success: false, message: "INVALID_TOKEN" }
          )
        }
        const bearer = bearerOf(request)
        const token = bearer ?? query.api_token ?? ""
        const agree = bearer === undefined || query.api_token === undefined || bearer === query.api_token
        if (!agree || !tokens.includes(token)) return json(response, 401, { message: "Unauthenticated." })
        arrivals.push(now())
        if (throttled(token, response)) return
        const fields = { ...query, ...(typeof body === "object" && body !== null ? body : {}) }
        delete (fields as Record<string, unknown>).api_token
        return route(method, path, fields, response)
      }
    })
    const ecotrack: Fake = {
      ...fake,
      parcels,
      addActivity: (tracking, status) => {
        const parcel = parcels.get(tracking)
        if (parcel === undefined) return
        parcel.validated = true
        parcel.activity.push({ ...clock, status, station: "Alger" })
        // The order's status follows its newest move (no label is known for an activity key: the key stands).
        parcel.status = status
      },
      setStatus: (tracking, status) => {
        const parcel = parcels.get(tracking)
        if (parcel !== undefined) parcel.status = status
      },
      arrivals,
      setClock: (date, time) => {
        clock = { date, time }
      },
      hold: (accept) => {
        held = accept
      },
      holding: () => open.size,
      dropHeld: () => {
        for (const response of open) response.socket?.destroy()
      }
    }
    return ecotrack
  })
