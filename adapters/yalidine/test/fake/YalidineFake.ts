/**
 * A loopback Yalidine-engine API: a real HTTP server on 127.0.0.1 (random port) speaking `/v1/…` as the research
 * notes document it (couriers.md §1.1, the official docs as integrators copied them) — and only as they document
 * it; nothing here was checked against a live network. It refuses what the platform refuses, so that a wrong
 * mapping fails a test:
 *
 * - Auth: `X-API-ID` and `X-API-TOKEN` of a known account, both, on every `/v1/` call; else 401.
 * - Quotas per account, in the documented windows: each second, minute and hour starts anew on the clock's own
 *   boundary, the day at Algiers midnight ("every new second … every midnight"), 5 a second, 50 a minute, 1 000 an
 *   hour, 10 000 a day unless told otherwise: every answer carries `x-second-quota-left` … `x-day-quota-left`; past
 *   a quota, 429 with `Retry-After`. The clock is real time unless a test gives its own (`now`).
 * - `POST /v1/parcels/`: a JSON array of parcels, every documented field by its exact name (an unknown name is
 *   refused too, stricter than documented, so a misspelt optional field cannot pass unseen), names of wilayas and
 *   communes as Yalidine spells them, national phone numbers, integer amounts in range, a known center for a stop
 *   desk. The answer is keyed by `order_id`; a refused parcel is `success: false` inside an HTTP 200, and the valid
 *   ones of the same request are still created (the 2026 docs).
 * - `GET /v1/parcels/{tracking}`, `GET /v1/histories/{tracking}` (and `?tracking=a,b`): the list envelope, a parcel's
 *   history too (100 rows a page unless asked otherwise). Tracking numbers match as prefixes, as a careless search
 *   would: only the adapter's exact filter keeps another parcel's rows out. A new parcel has no history row until
 *   its first movement. Each parcel carries its `label` link.
 * - Every list is paginated as documented: `page_size` 1–1000 (100 by default), `page` from 1, `has_more`.
 * - `DELETE /v1/parcels/{tracking}` (and `?tracking=a,b`): a decision per tracking number, `{ tracking, deleted }`;
 *   only a parcel whose last status is "En préparation" is deleted (with its history); anything else (moved on,
 *   unknown, already deleted) is `deleted: false`, as the docs say, without a reason.
 * - `GET /v1/fees/?from_wilaya_id=&to_wilaya_id=`: both required; fees per destination commune.
 * - `GET /v1/wilayas/`, `/v1/communes/?wilaya_id=`, `/v1/centers/?wilaya_id=`: the reference lists behind all this
 *   (centers with the documented `center_id, name, address, gps, commune_id, commune_name, wilaya_id, wilaya_name`).
 * - Label links as the docs print them: `https://yalidine.app/app/bordereau.php?tracking=…&token=…`, a host of its
 *   own (the API has no label endpoint), which the fake serves too (requests reach it on loopback), public: a PDF,
 *   or, told to (`bordereau: "html"`), an HTML page; or, told to (`labelLinks: "api"`), the 2026 transcription's
 *   `<API host>/labels/{tracking}`, which the fake then serves, a PDF, public like the link.
 * - Any other method on these routes: 405; any other path: 404.
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, any JSON, a refused parcel, or a refusal quoting the caller's token.
 */
import type * as Http from "node:http"
import { WilayaNames } from "@tawsil/courier"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer, type Scope } from "effect"

export const API_ID = "94986571734304520846"
export const API_TOKEN = "fake-token-5MKfvcyQtO3eouL6tDv0VDFh"

export interface Quotas {
  readonly second: number
  readonly minute: number
  readonly hour: number
  readonly day: number
}

export const DEFAULT_QUOTAS: Quotas = { second: 5, minute: 50, hour: 1000, day: 10000 }

export interface Account {
  readonly apiId: string
  readonly apiToken: string
  readonly quotas?: Partial<Quotas>
}

/** The fake network does not deliver there. */
export const UNDELIVERABLE: ReadonlyArray<number> = [50]
/** Deep south: no stop desk, no economic tier. */
export const NO_DESK: ReadonlyArray<number> = [33, 37, 50, 54, 56]

export interface Commune {
  readonly id: number
  readonly name: string
  readonly wilaya: number
  readonly hasStopDesk: boolean
}

const known: ReadonlyArray<readonly [number, string, boolean]> = [
  [1601, "Alger Centre", true],
  [1611, "Bab Ezzouar", true],
  [1620, "Hydra", false],
  [1630, "Bordj El Kiffan", true],
  [901, "Blida", true],
  [902, "Boufarik", false],
  [1901, "Sétif", true],
  [1902, "Aïn Arnat", true],
  [3101, "Oran", true],
  [3102, "Bir El Djir", true],
  [3111, "Es Senia", false]
]

/** A few real communes where tests look closely; elsewhere the wilaya's seat, `<id>01`, named after it. */
export const COMMUNES: ReadonlyArray<Commune> = WilayaNames.FRENCH.flatMap((name, index) => {
  const wilaya = index + 1
  const listed = known.filter(([id]) => Math.floor(id / 100) === wilaya)
  return listed.length > 0
    ? listed.map(([id, commune, hasStopDesk]) => ({ id, name: commune, wilaya, hasStopDesk }))
    : [{ id: wilaya * 100 + 1, name, wilaya, hasStopDesk: !NO_DESK.includes(wilaya) }]
})

/** A stop desk in every commune that has one: center id = commune id × 100 + 1 (`163001`, Bordj El Kiffan). */
export const centerOf = (commune: Commune) => commune.id * 100 + 1

/** The street address of a commune's center. */
export const addressOf = (commune: Commune) => `Rue des Frères Bouadou, ${commune.name}`

const zoneOf = (from: number, to: number) =>
  NO_DESK.includes(to) ? 5 : from === to ? 1 : Math.abs(from - to) <= 10 ? 2 : Math.abs(from - to) <= 30 ? 3 : 4

/** The fake's tariff for one destination commune of a route. */
export const feesOf = (from: number, commune: Commune) => {
  const zone = zoneOf(from, commune.wilaya)
  const rank = COMMUNES.filter((other) => other.wilaya === commune.wilaya && other.id < commune.id).length
  const home = (zone === 1 ? 400 : 500 + 100 * zone) + 50 * rank
  const desk = NO_DESK.includes(commune.wilaya) ? null : home - 200
  return {
    commune_id: commune.id,
    commune_name: commune.name,
    express_home: home,
    express_desk: desk,
    economic_home: zone <= 3 ? home - 100 : null,
    economic_desk: zone <= 3 && desk !== null ? desk - 100 : null
  }
}

export const retourFeeOf = (from: number, to: number) => 200 + 50 * zoneOf(from, to)
export const COD_PERCENTAGE = 0.75

export type RecordedRequest = FakeCourier.Request

/** Yalidine's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own =
  /** Its 429 with the quota headers (`x-…-quota-left`), `Retry-After` when given. */
  | { readonly kind: "rateLimited"; readonly retryAfter?: string; readonly quotaLeft?: Partial<Quotas> }
  /** The next create refuses its parcels with this message, inside its 200. */
  | { readonly kind: "refuseParcel"; readonly message: string }
  | { readonly kind: "echoToken" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface HistoryRow {
  readonly date_status: string
  readonly tracking: string
  readonly status: string
  readonly reason: string
  readonly center_id: number | null
  readonly center_name: string | null
  readonly wilaya_id: number
  readonly wilaya_name: string
  readonly commune_id: number
  readonly commune_name: string
}

export interface Parcel {
  readonly tracking: string
  readonly fields: Readonly<Record<string, unknown>>
  readonly account: string
  readonly dateCreation: string
  lastStatus: string
  dateLastStatus: string
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly parcels: ReadonlyMap<string, Parcel>
  readonly histories: ReadonlyArray<HistoryRow>
  /** Appends a history row to a parcel, stamped with the fake's clock; it becomes the parcel's last status. */
  readonly addHistory: (tracking: string, status: string, reason?: string) => void
  /** A parcel of the first account under any tracking number, as if created earlier. */
  readonly addParcel: (tracking: string) => void
  /** The Algiers wall-clock time (`YYYY-MM-DD HH:MM:SS`) the fake stamps parcels and history with. */
  readonly setClock: (local: string) => void
  /** The time of every request the fake received, by its clock (`Options.now`), oldest first. */
  readonly arrivals: ReadonlyArray<number>
}

export interface Options {
  readonly accounts?: ReadonlyArray<Account>
  /** The form of label links: the docs' tokenised one on `yalidine.app` (default), or the 2026 `…/labels/<tracking>`. */
  readonly labelLinks?: "api" | "bordereau"
  /** What a bordereau link answers: a PDF (default) or an HTML page (the docs do not say which). */
  readonly bordereau?: "pdf" | "html"
  /** The origin the network is known by in its own links (the fake listens on loopback). */
  readonly publicOrigin?: string
  /** The fake's clock for its quotas, in milliseconds: real time unless a test gives its own. */
  readonly now?: () => number
}

/** The token of the fake's bordereau links (the docs' links carry one per parcel; one for all is enough here). */
export const BORDEREAU_TOKEN = "dFNOSDlLazJQYWY1eDlhN01EbFRJQT09"

/**
 * A parcel's label: a one-page PDF (4 × 6 in) a PDF reader opens, its first comment naming the parcel
 * (`% bordereau <tracking> <commune>`), with a cross-reference table at the offsets it states.
 */
export const labelPdf = (tracking: string, commune: string): string => {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] >>"
  ]
  let text = `%PDF-1.4\n% bordereau ${tracking} ${commune}\n`
  const offsets: Array<number> = []
  for (const [index, body] of objects.entries()) {
    offsets.push(Buffer.byteLength(text, "utf8"))
    text += `${index + 1} 0 obj\n${body}\nendobj\n`
  }
  const xref = Buffer.byteLength(text, "utf8")
  const entries = offsets.map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`).join("")
  return `${text}xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
}

/** Starts the fake on a random loopback port; it stops when the scope closes. */
export const make = (options: Options = {}): Effect.Effect<Fake, never, Scope.Scope> => start(options)

export class YalidineFake extends Context.Service<YalidineFake, Fake>()("@tawsil/adapter-yalidine/test/YalidineFake") {
  static readonly layer = (options: Options = {}) => Layer.effect(YalidineFake, make(options))
}

const { json } = FakeCourier

const failure = (status: number, message: string) => ({ error: { status_code: status, message } })

const PARCEL_FIELDS: Readonly<Record<string, "string" | "integer" | "boolean" | "price">> = {
  order_id: "string",
  from_wilaya_name: "string",
  firstname: "string",
  familyname: "string",
  contact_phone: "string",
  address: "string",
  to_commune_name: "string",
  to_wilaya_name: "string",
  product_list: "string",
  price: "price",
  do_insurance: "boolean",
  declared_value: "price",
  length: "integer",
  width: "integer",
  height: "integer",
  weight: "integer",
  freeshipping: "boolean",
  is_stopdesk: "boolean",
  has_exchange: "boolean"
}
const OPTIONAL_FIELDS = new Set(["stopdesk_id", "product_to_collect", "economic"])

const isBoolean = (value: unknown) => value === true || value === false || value === 0 || value === 1
const truthy = (value: unknown) => value === true || value === 1

/** The first thing wrong with one parcel, as the docs word their errors, or undefined. */
const parcelProblem = (parcel: Readonly<Record<string, unknown>>): string | undefined => {
  for (const name of Object.keys(parcel)) {
    if (!(name in PARCEL_FIELDS) && !OPTIONAL_FIELDS.has(name)) return `The ${name} parameter is not recognised`
  }
  for (const [name, type] of Object.entries(PARCEL_FIELDS)) {
    const value = parcel[name]
    if (value === undefined || value === null || value === "") return `The ${name} parameter is required`
    if (type === "string" && typeof value !== "string") return `The ${name} parameter must be of type string`
    if (type === "boolean" && !isBoolean(value)) return `The ${name} parameter must be of type boolean`
    if ((type === "integer" || type === "price") && !(Number.isInteger(value) && (value as number) >= 0)) {
      return `The ${name} parameter must be an integer greater than or equal to 0`
    }
    if (type === "price" && (value as number) > 150000) return `The ${name} parameter must be between 0 and 150000`
  }
  const phones = String(parcel.contact_phone)
    .split(",")
    .map((phone) => phone.trim())
    .filter((phone) => phone !== "")
  if (phones.length === 0 || !phones.every((phone) => /^0\d{8,9}$/.test(phone))) {
    return "The contact_phone parameter must start with 0 and contain 9 digits for mobile or 8 digits for landline"
  }
  if (!WilayaNames.FRENCH.includes(String(parcel.from_wilaya_name)))
    return "The from_wilaya_name is not a valid wilaya name"
  const toWilaya = WilayaNames.codeOf(String(parcel.to_wilaya_name)) ?? 0
  if (toWilaya === 0) return "The to_wilaya_name is not a valid wilaya name"
  if (UNDELIVERABLE.includes(toWilaya)) return `The wilaya ${parcel.to_wilaya_name} is not deliverable`
  const commune = COMMUNES.find((c) => c.wilaya === toWilaya && c.name === parcel.to_commune_name)
  if (commune === undefined)
    return `The to_commune_name ${String(parcel.to_commune_name)} does not belong to the wilaya`
  if (truthy(parcel.is_stopdesk)) {
    const center = parcel.stopdesk_id
    if (center === undefined || center === null || center === "") return "The stopdesk_id parameter is required"
    const desk = COMMUNES.find((c) => c.wilaya === toWilaya && c.hasStopDesk && centerOf(c) === Number(center))
    if (desk === undefined) return "The stopdesk_id is not a stop desk of the destination wilaya"
  }
  if (
    truthy(parcel.has_exchange) &&
    (typeof parcel.product_to_collect !== "string" || parcel.product_to_collect === "")
  ) {
    return "The product_to_collect parameter is required when has_exchange is true"
  }
  return undefined
}

interface Window {
  start: number
  count: number
}

const WINDOW_MILLIS: Readonly<Record<keyof Quotas, number>> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000
}

/** Algiers is UTC+01:00 all year: its midnight is 23:00 UTC. */
const ALGIERS_OFFSET = 3_600_000

/** Where the window of a quota that holds `now` started: the clock's own boundary, the day's at Algiers midnight. */
const windowStart = (name: keyof Quotas, now: number) => {
  const offset = name === "day" ? ALGIERS_OFFSET : 0
  return Math.floor((now + offset) / WINDOW_MILLIS[name]) * WINDOW_MILLIS[name] - offset
}

const start = (options: Options) =>
  Effect.gen(function* () {
    const accounts = options.accounts ?? [{ apiId: API_ID, apiToken: API_TOKEN }]
    const publicOrigin = options.publicOrigin ?? "https://api.yalidine.app"
    const parcels = new Map<string, Parcel>()
    const histories: Array<HistoryRow> = []
    /** The message the next create refuses its parcels with (`refuseParcel`), once. */
    let refusing: string | undefined
    const windows = new Map<string, Record<keyof Quotas, Window>>()
    const clockMillis = options.now ?? Date.now
    const arrivals: Array<number> = []
    const labelOf = (tracking: string) =>
      options.labelLinks === "api"
        ? `${publicOrigin}/labels/${tracking}`
        : `https://yalidine.app/app/bordereau.php?tracking=${tracking}&token=${BORDEREAU_TOKEN}`
    let clock = "2026-04-18 19:45:06"
    let issued = 0
    let imports = 0

    /** Counts one request of `account`: the quota headers to send, or the 429 answer's when a quota is spent. */
    const consume = (account: Account) => {
      const now = clockMillis()
      arrivals.push(now)
      const quotas = { ...DEFAULT_QUOTAS, ...account.quotas }
      const state = windows.get(account.apiId) ?? {
        second: { start: windowStart("second", now), count: 0 },
        minute: { start: windowStart("minute", now), count: 0 },
        hour: { start: windowStart("hour", now), count: 0 },
        day: { start: windowStart("day", now), count: 0 }
      }
      windows.set(account.apiId, state)
      const names = Object.keys(WINDOW_MILLIS) as ReadonlyArray<keyof Quotas>
      for (const name of names) {
        if (now >= state[name].start + WINDOW_MILLIS[name]) state[name] = { start: windowStart(name, now), count: 0 }
      }
      const spent = names.filter((name) => state[name].count >= quotas[name])
      if (spent.length === 0) for (const name of names) state[name].count += 1
      const headers: Record<string, string> = Object.fromEntries(
        names.map((name) => [`x-${name}-quota-left`, String(Math.max(0, quotas[name] - state[name].count))])
      )
      if (spent.length === 0) return { headers, retryAfter: undefined }
      const wait = Math.max(...spent.map((name) => state[name].start + WINDOW_MILLIS[name] - now))
      return { headers, retryAfter: Math.max(1, Math.ceil(wait / 1000)) }
    }

    /** One page of a list, as `page` and `page_size` ask (1–1000, 100 by default). */
    const list = (
      response: Http.ServerResponse,
      data: ReadonlyArray<unknown>,
      headers: Record<string, string>,
      query: Readonly<Record<string, string>> = {}
    ) => {
      const size = query.page_size === undefined ? 100 : Number(query.page_size)
      const page = query.page === undefined ? 1 : Number(query.page)
      if (!Number.isInteger(size) || size < 1 || size > 1000) {
        return json(response, 400, failure(400, "The page_size parameter must be between 1 and 1000"), headers)
      }
      if (!Number.isInteger(page) || page < 1) {
        return json(response, 400, failure(400, "The page parameter must be an integer greater than 0"), headers)
      }
      const rows = data.slice((page - 1) * size, page * size)
      const hasMore = page * size < data.length
      return json(
        response,
        200,
        {
          has_more: hasMore,
          total_data: data.length,
          data: rows,
          links: {
            self: `${publicOrigin}/v1/?page_size=${size}&page=${page}`,
            ...(hasMore ? { next: `${publicOrigin}/v1/?page_size=${size}&page=${page + 1}` } : {})
          }
        },
        headers
      )
    }

    /** `DELETE`: only a parcel of this account still "En préparation", by its exact tracking number. */
    const deleteParcels = (
      asked: ReadonlyArray<string>,
      account: Account,
      response: Http.ServerResponse,
      headers: Record<string, string>
    ) => {
      if (asked.length === 0) {
        return json(response, 400, failure(400, "The tracking parameter is required"), headers)
      }
      const decisions = asked.map((tracking) => {
        const parcel = parcels.get(tracking)
        const deletable =
          parcel !== undefined && parcel.account === account.apiId && parcel.lastStatus === "En préparation"
        if (deletable) {
          parcels.delete(tracking)
          for (let i = histories.length - 1; i >= 0; i--)
            if (histories[i]!.tracking === tracking) histories.splice(i, 1)
        }
        return { tracking, deleted: deletable }
      })
      return json(response, 200, decisions, headers)
    }

    /** Tracking numbers asked for, by path or `?tracking=a,b`, matched (carelessly) as prefixes. */
    const matches = (asked: ReadonlyArray<string>) => (tracking: string) =>
      asked.length === 0 || asked.some((prefix) => tracking.startsWith(prefix))

    const parcelRow = (parcel: Parcel) => ({
      tracking: parcel.tracking,
      order_id: parcel.fields.order_id,
      firstname: parcel.fields.firstname,
      familyname: parcel.fields.familyname,
      contact_phone: parcel.fields.contact_phone,
      address: parcel.fields.address,
      is_stopdesk: truthy(parcel.fields.is_stopdesk) ? 1 : 0,
      stopdesk_id: parcel.fields.stopdesk_id ?? null,
      from_wilaya_name: parcel.fields.from_wilaya_name,
      to_commune_name: parcel.fields.to_commune_name,
      to_wilaya_name: parcel.fields.to_wilaya_name,
      product_list: parcel.fields.product_list,
      price: parcel.fields.price,
      freeshipping: truthy(parcel.fields.freeshipping) ? 1 : 0,
      date_creation: parcel.dateCreation,
      date_last_status: parcel.dateLastStatus,
      last_status: parcel.lastStatus,
      payment_status: "not-ready",
      label: labelOf(parcel.tracking)
    })

    const createParcels = (
      body: unknown,
      account: Account,
      response: Http.ServerResponse,
      headers: Record<string, string>,
      refuse: string | undefined
    ) => {
      if (!Array.isArray(body) || body.length === 0) {
        return json(response, 400, failure(400, "The request body must be an array of parcels"), headers)
      }
      imports += 1
      const importId = imports
      const results: Record<string, unknown> = {}
      const seen = new Set<string>()
      for (const item of body) {
        const parcel = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>
        const orderId = typeof parcel.order_id === "string" ? parcel.order_id : String(parcel.order_id ?? "")
        const problem =
          refuse ?? (seen.has(orderId) ? "The order_id must be unique in the same request" : parcelProblem(parcel))
        seen.add(orderId)
        if (problem !== undefined) {
          results[orderId] = {
            success: false,
            order_id: orderId,
            tracking: null,
            import_id: null,
            label: null,
            labels: null,
            message: problem
          }
          continue
        }
        issued += 1
        const tracking = `yal-${issued.toString(36).toUpperCase().padStart(6, "0")}`
        parcels.set(tracking, {
          tracking,
          fields: parcel,
          account: account.apiId,
          dateCreation: clock,
          lastStatus: "En préparation",
          dateLastStatus: clock
        })
        const label = labelOf(tracking)
        results[orderId] = {
          success: true,
          order_id: orderId,
          tracking,
          import_id: importId,
          label,
          labels: `https://yalidine.app/app/bordereau.php?import_id=${importId}&token=SFUxek1qQVdhbXV2QjZDUXZM6548`,
          message: ""
        }
      }
      return json(response, 200, results, headers)
    }

    const fees = (
      query: Readonly<Record<string, string>>,
      response: Http.ServerResponse,
      headers: Record<string, string>
    ) => {
      const from = Number(query.from_wilaya_id)
      const to = Number(query.to_wilaya_id)
      if (query.from_wilaya_id === undefined || query.to_wilaya_id === undefined) {
        return json(
          response,
          400,
          failure(400, "You must supply both: the from_wilaya_id and the to_wilaya_id"),
          headers
        )
      }
      if (![from, to].every((id) => Number.isInteger(id) && id >= 1 && id <= WilayaNames.FRENCH.length)) {
        return json(response, 400, failure(400, "The wilaya id is not valid"), headers)
      }
      const communes = UNDELIVERABLE.includes(to) ? [] : COMMUNES.filter((commune) => commune.wilaya === to)
      return json(
        response,
        200,
        {
          from_wilaya_name: WilayaNames.FRENCH[from - 1],
          to_wilaya_name: WilayaNames.FRENCH[to - 1],
          zone: zoneOf(from, to),
          retour_fee: retourFeeOf(from, to),
          cod_percentage: COD_PERCENTAGE,
          insurance_percentage: 0.75,
          oversize_fee: 100,
          per_commune: Object.fromEntries(communes.map((commune) => [String(commune.id), feesOf(from, commune)]))
        },
        headers
      )
    }

    /** The authenticated `/v1/` routes. */
    const route = (
      method: string,
      path: string,
      query: Readonly<Record<string, string>>,
      body: unknown,
      account: Account,
      response: Http.ServerResponse,
      headers: Record<string, string>,
      refuse: string | undefined
    ) => {
      const segments = path.split("/").filter((segment) => segment !== "")
      const [version, resource, id, ...rest] = segments
      if (version !== "v1" || resource === undefined || rest.length > 0) {
        return json(response, 404, failure(404, "Not Found"), headers)
      }
      const resources = ["parcels", "histories", "fees", "wilayas", "communes", "centers"]
      if (!resources.includes(resource)) return json(response, 404, failure(404, "Not Found"), headers)
      const allowed =
        resource === "parcels" ? (id === undefined ? ["GET", "POST", "DELETE"] : ["GET", "DELETE"]) : ["GET"]
      if (!allowed.includes(method)) return json(response, 405, failure(405, "Method Not Allowed"), headers)
      const asked = [...(id === undefined ? [] : [decodeURIComponent(id)]), ...(query.tracking?.split(",") ?? [])]
      const mine = (parcel: Parcel | undefined) => parcel !== undefined && parcel.account === account.apiId
      switch (resource) {
        case "parcels":
          if (method === "POST") return createParcels(body, account, response, headers, refuse)
          if (method === "DELETE") return deleteParcels(asked, account, response, headers)
          return list(
            response,
            [...parcels.values()].filter((parcel) => mine(parcel) && matches(asked)(parcel.tracking)).map(parcelRow),
            headers,
            query
          )
        case "histories":
          return list(
            response,
            histories
              .filter((row) => mine(parcels.get(row.tracking)) && matches(asked)(row.tracking))
              .sort((a, b) => b.date_status.localeCompare(a.date_status)),
            headers,
            query
          )
        case "fees":
          return fees(query, response, headers)
        case "wilayas":
          return list(
            response,
            WilayaNames.FRENCH.map((name, index) => ({
              id: index + 1,
              name,
              zone: zoneOf(16, index + 1),
              is_deliverable: UNDELIVERABLE.includes(index + 1) ? 0 : 1
            })),
            headers,
            query
          )
        case "communes":
          return list(
            response,
            COMMUNES.filter((c) => query.wilaya_id === undefined || c.wilaya === Number(query.wilaya_id)).map((c) => ({
              id: c.id,
              name: c.name,
              wilaya_id: c.wilaya,
              wilaya_name: WilayaNames.FRENCH[c.wilaya - 1],
              has_stop_desk: c.hasStopDesk ? 1 : 0,
              is_deliverable: UNDELIVERABLE.includes(c.wilaya) ? 0 : 1
            })),
            headers,
            query
          )
        default:
          return list(
            response,
            COMMUNES.filter(
              (c) => c.hasStopDesk && (query.wilaya_id === undefined || c.wilaya === Number(query.wilaya_id))
            ).map((c) => ({
              center_id: centerOf(c),
              name: `Centre de ${c.name}`,
              address: addressOf(c),
              gps: "36.7538,3.0588",
              commune_id: c.id,
              commune_name: c.name,
              wilaya_id: c.wilaya,
              wilaya_name: WilayaNames.FRENCH[c.wilaya - 1]
            })),
            headers,
            query
          )
      }
    }

    /** `GET /labels/{tracking}`: public, like the link it stands behind. */
    const label = (method: string, path: string, response: Http.ServerResponse) => {
      if (method !== "GET") return json(response, 405, failure(405, "Method Not Allowed"))
      const parcel = parcels.get(decodeURIComponent(path.slice("/labels/".length)))
      if (parcel === undefined) return json(response, 404, failure(404, "Label not found"))
      response.writeHead(200, { "content-type": "application/pdf" })
      response.end(labelPdf(parcel.tracking, String(parcel.fields.to_commune_name)))
    }

    /** `GET yalidine.app/app/bordereau.php?tracking=…&token=…`: public, the link's token is its key. */
    const bordereau = (method: string, query: Readonly<Record<string, string>>, response: Http.ServerResponse) => {
      const parcel = query.tracking === undefined ? undefined : parcels.get(query.tracking)
      if (method !== "GET" || parcel === undefined || query.token !== BORDEREAU_TOKEN) {
        response.writeHead(404, { "content-type": "text/html" })
        return response.end("<html><body>Bordereau introuvable</body></html>")
      }
      if (options.bordereau === "html") {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        return response.end(`<html><body><h1>Bordereau ${parcel.tracking}</h1></body></html>`)
      }
      response.writeHead(200, { "content-type": "application/pdf" })
      response.end(labelPdf(parcel.tracking, String(parcel.fields.to_commune_name)))
    }

    /** Yalidine's own misbehaviours: its 429 with quota headers, a refused parcel, a refusal quoting the token. */
    const misbehave = (misbehaviour: Misbehaviour, request: RecordedRequest, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "rateLimited": {
          const quotaLeft = "quotaLeft" in misbehaviour ? misbehaviour.quotaLeft : undefined
          const left = { second: 0, minute: 12, hour: 900, day: 9000, ...quotaLeft }
          json(response, 429, failure(429, "Too Many Requests"), {
            ...Object.fromEntries(Object.entries(left).map(([name, value]) => [`x-${name}-quota-left`, String(value)])),
            ...(misbehaviour.retryAfter === undefined ? {} : { "retry-after": misbehaviour.retryAfter })
          })
          return true
        }
        case "echoToken":
          json(
            response,
            400,
            failure(400, `The token ${request.headers["x-api-token"] ?? ""} is not allowed for this action`)
          )
          return true
        case "refuseParcel":
          // Not an answer of its own: the next create refuses its parcels with this message.
          refusing = misbehaviour.message
          return false
        default:
          return false
      }
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (status, message) => failure(status, message),
      misbehave,
      handle: ({ body, headers, method, path, query }, response) => {
        const refuse = refusing
        refusing = undefined
        if (path.startsWith("/labels/") && options.labelLinks === "api") return label(method, path, response)
        if (path === "/app/bordereau.php") return bordereau(method, query, response)
        const account = accounts.find(
          (candidate) => candidate.apiId === headers["x-api-id"] && candidate.apiToken === headers["x-api-token"]
        )
        if (account === undefined) {
          return json(response, 401, failure(401, "Unauthorized: the X-API-ID and X-API-TOKEN headers do not match"))
        }
        const quota = consume(account)
        if (quota.retryAfter !== undefined) {
          return json(response, 429, failure(429, "Too Many Requests"), {
            ...quota.headers,
            "retry-after": String(quota.retryAfter)
          })
        }
        if (method === "POST" && !(headers["content-type"] ?? "").startsWith("application/json")) {
          return json(response, 400, failure(400, "The request body must be JSON"), quota.headers)
        }
        return route(method, path, query, body, account, response, quota.headers, refuse)
      }
    })
    const yalidine: Fake = {
      ...fake,
      parcels,
      histories,
      addHistory: (tracking, status, reason = "") => {
        const parcel = parcels.get(tracking)
        if (parcel === undefined) return
        const destination = COMMUNES.find(
          (c) =>
            c.name === parcel.fields.to_commune_name &&
            WilayaNames.FRENCH[c.wilaya - 1] === parcel.fields.to_wilaya_name
        ) ?? { id: 1601, name: "Alger Centre", wilaya: 16, hasStopDesk: true }
        histories.push({
          date_status: clock,
          tracking,
          status,
          reason,
          center_id: destination.hasStopDesk ? centerOf(destination) : null,
          center_name: destination.hasStopDesk ? `Centre de ${destination.name}` : null,
          wilaya_id: destination.wilaya,
          wilaya_name: WilayaNames.FRENCH[destination.wilaya - 1]!,
          commune_id: destination.id,
          commune_name: destination.name
        })
        parcel.lastStatus = status
        parcel.dateLastStatus = clock
      },
      addParcel: (tracking) => {
        parcels.set(tracking, {
          tracking,
          fields: { order_id: tracking, to_commune_name: "Bab Ezzouar", to_wilaya_name: "Alger" },
          account: accounts[0]!.apiId,
          dateCreation: clock,
          lastStatus: "En préparation",
          dateLastStatus: clock
        })
      },
      setClock: (local) => {
        clock = local
      },
      arrivals
    }
    return yalidine
  })
