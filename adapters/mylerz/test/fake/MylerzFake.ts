/**
 * A loopback Mylerz: a real HTTP server on 127.0.0.1 (random port) speaking the API as Mylerz's generated help pages
 * (`/Help`: request and response models) and the public integrations that call it describe it — and only as they
 * describe it; nothing here was checked against the live platform (README "Unverified").
 *
 * - `POST /token`, form-encoded `grant_type=password&username&password` (OWIN's OAuth server): 200 `{ access_token,
 *   token_type: "bearer", expires_in }` for an account it knows; 400 `{ error: "invalid_grant", error_description }`
 *   otherwise; 400 `unsupported_grant_type` for another grant or body.
 * - Every `/api/…` call needs `Authorization: Bearer <token>` of a token it issued and has not expired (`expireTokens`):
 *   else 401 `{ Message: "Authorization has been denied for this request." }`. Answers are the envelope
 *   `{ Value, CoreValue, IsErrorState, ErrorDescription, ErrorMetadata }`.
 * - `GET api/packages/GetCityZoneList`: the cities (wilayas) with their zones (communes), {@link CITIES}.
 * - `POST api/Orders/AddOrders` (a list of OrderDTOs, JSON only): each checked (name, a national mobile, a known zone
 *   code as `Neighborhood`, its city, a street, `COD_Value`, `Payment_Type`, `Service_Type`); a package with a
 *   14-digit barcode and status `Uploaded`, or one with no barcode and its `ErrorMessage`.
 * - `POST api/packages/TrackPackages` (a list of `{ Barcode }`): each known package of the account with its `TrackLog`
 *   (`StatusEnName`, `ChangedDate` in Algiers wall-clock time, .NET's form); unknown ones are left out.
 * - `POST api/packages/CancelPackage` (a list of `{ Barcode }`): `IsChanged: true` while the package is `Uploaded` or
 *   `Not Picked Yet`; else `IsChanged: false` with Mylerz's words ("not found", or past cancelling).
 * - `POST api/packages/GetAWB` (`{ Barcode }`): the PDF's bytes as base64; unknown: `IsErrorState: true`.
 * - Any other path: 404 `{ Message: "No HTTP resource was found…" }`.
 *
 * Every request is recorded; `misbehaveNext` makes the next request (optionally for one path) hang, reset, answer
 * 5xx, HTML, 429, any JSON, a refusal in the envelope, a refusal quoting the caller's password, refuse every token
 * (an account without API access), or expire every token first (the next call meets a 401 with a kept token).
 */
import type * as Http from "node:http"
import { FakeCourier } from "@tawsil/courier/testing"
import { Context, Effect, Layer } from "effect"

export interface Account {
  readonly username: string
  readonly password: string
}

export const ACCOUNT: Account = { username: "merchant@example.dz", password: "fake-mylerz-password-5d1c" }

/** The cities (wilayas) and zones (communes) of the fake: `[code, English name, Arabic name, zones]`. */
export const CITIES = [
  {
    Code: "ALG",
    EnName: "Algiers",
    ArName: "الجزائر",
    Zones: [
      { Code: "ALG-BEZ", EnName: "Bab Ezzouar", ArName: "باب الزوار" },
      { Code: "ALG-HYD", EnName: "Hydra", ArName: "حيدرة" },
      { Code: "ALG-BEK", EnName: "Bordj El Kiffan", ArName: "برج الكيفان" },
      { Code: "ALG-ACE", EnName: "Alger Centre", ArName: "الجزائر الوسطى" }
    ]
  },
  {
    Code: "ORN",
    EnName: "Oran",
    ArName: "وهران",
    Zones: [
      { Code: "ORN-ORN", EnName: "Oran", ArName: "وهران" },
      { Code: "ORN-BED", EnName: "Bir El Djir", ArName: "بئر الجير" }
    ]
  },
  { Code: "BLD", EnName: "Blida", ArName: "البليدة", Zones: [{ Code: "BLD-BLD", EnName: "Blida", ArName: "البليدة" }] }
] as const

const DENIED = { Message: "Authorization has been denied for this request." }

export type RecordedRequest = FakeCourier.Request

/** Mylerz's own misbehaviours, besides the standard ones (`FakeCourier.Misbehaviour`). */
export type Own =
  /** A refusal in the envelope, on HTTP 200: `IsErrorState: true` with these words. */
  | { readonly kind: "refuse"; readonly message: string }
  /** A refusal that quotes the caller's password (for the host to blank out). */
  | { readonly kind: "echoPassword" }
  /** Every token it issued stops working, then the request is answered: a kept token meets a 401. */
  | { readonly kind: "expireTokens" }
  /** Refuses this request's token whatever it is, as for an account without API access. */
  | { readonly kind: "denyToken" }

export type Misbehaviour = FakeCourier.Misbehaviour | Own

export interface Step {
  readonly status: string
  readonly date: string
}

export interface Package {
  readonly barcode: string
  readonly username: string
  readonly order: Readonly<Record<string, unknown>>
  readonly history: Array<Step>
}

export interface Fake extends FakeCourier.FakeCourier<Own> {
  readonly packages: ReadonlyMap<string, Package>
  /** How many logins it answered with a token. */
  readonly logins: () => number
  /** Appends a status to a package's history, stamped with the fake's clock (it must exist). */
  readonly addStatus: (barcode: string, status: string) => void
  /** The Algiers wall-clock time (`YYYY-MM-DDTHH:MM:SS`) the fake stamps statuses with. */
  readonly setClock: (local: string) => void
  /** Every token it issued stops working. */
  readonly expireTokens: () => void
}

export interface Options {
  readonly accounts?: ReadonlyArray<Account>
  /** What `/token` answers as `expires_in`; `null` leaves it out. 14 days by default, as OWIN's default. */
  readonly expiresIn?: number | null
  /** Seed {@link SEEDED_PACKAGE} for the first account, `Uploaded`: to label and track without creating. */
  readonly seed?: boolean
}

/** The package `seed` gives the fake. */
export const SEEDED_PACKAGE = "30000000000001"

export class MylerzFake extends Context.Service<MylerzFake, Fake>()("@tawsil/adapter-mylerz/test/MylerzFake") {
  static readonly layer = (options: Options = {}) => Layer.effect(MylerzFake, make(options))
}

const { json } = FakeCourier

/** The envelope of every API answer. */
export const envelope = (value: unknown, error?: string) => ({
  Value: value,
  CoreValue: null,
  IsErrorState: error !== undefined,
  ErrorDescription: error ?? null,
  ErrorMetadata: null
})

const isText = (value: unknown): value is string => typeof value === "string" && value.trim() !== ""
const mobile = /^0[5-7]\d{8}$/
const zoneByCode = (code: unknown) =>
  CITIES.flatMap((city) => city.Zones.filter((zone) => zone.Code === code).map((zone) => ({ city, zone })))[0]

/** Mylerz's checks of an OrderDTO (the help pages' required fields and limits; the messages are the fake's). */
const validateOrder = (dto: Readonly<Record<string, unknown>>): string | undefined => {
  if (!isText(dto.Customer_Name) || dto.Customer_Name.length > 200) return "Customer_Name is required"
  if (typeof dto.Mobile_No !== "string" || !mobile.test(dto.Mobile_No)) return "Mobile_No is not a valid mobile number"
  const place = zoneByCode(dto.Neighborhood)
  if (place === undefined) return `Neighborhood ${String(dto.Neighborhood)} is not a valid zone`
  if (dto.City !== place.city.EnName) return "City does not match the zone"
  if (!isText(dto.Street) || dto.Street.length > 500) return "Street is required"
  if (!isText(dto.Description)) return "Description is required"
  if (!["COD", "PP", "CC"].includes(String(dto.Payment_Type))) return "Payment_Type is not valid"
  if (typeof dto.COD_Value !== "number" || dto.COD_Value < 0) return "COD_Value must be a positive number"
  if (dto.Payment_Type === "COD" && dto.COD_Value === 0) return "COD_Value is required for a COD package"
  if (!["DTD", "DTC", "CTD", "CTC"].includes(String(dto.Service_Type))) return "Service_Type is not valid"
  if (!["ND", "SD"].includes(String(dto.Service))) return "Service is not valid"
  if (typeof dto.Total_Weight !== "number" || dto.Total_Weight <= 0) return "Total_Weight must be more than 0"
  if (typeof dto.ValueOfGoods !== "number" || Math.abs(dto.ValueOfGoods) > 999999) {
    return "ValueOfGoods must be between -999999 and 999999"
  }
  return undefined
}

/** The label of a package: a one-page PDF naming it. */
export const awbOf = (barcode: string) => Buffer.from(`%PDF-1.4\n% Mylerz AWB ${barcode}\n%%EOF\n`)

/** Starts the fake on a random loopback port, for `accounts`; it stops when the scope closes. */
export const make = (options: Options = {}) =>
  Effect.gen(function* () {
    const accounts = options.accounts ?? [ACCOUNT]
    const expiresIn = options.expiresIn === undefined ? 1_209_599 : options.expiresIn
    const packages = new Map<string, Package>()
    const tokens = new Map<string, string>()
    let clock = "2026-09-26T10:15:00"
    let issued = 0
    let logins = 0
    let made = 0
    if (options.seed === true) {
      packages.set(SEEDED_PACKAGE, {
        barcode: SEEDED_PACKAGE,
        username: accounts[0]!.username,
        order: {},
        history: [{ status: "Uploaded", date: "2026-09-25T09:00:00" }]
      })
    }

    const tokenOf = (request: RecordedRequest) => /^Bearer (.+)$/i.exec(request.headers.authorization ?? "")?.[1]

    const misbehave = (misbehaviour: Misbehaviour, request: RecordedRequest, response: Http.ServerResponse) => {
      switch (misbehaviour.kind) {
        case "refuse":
          json(response, 200, envelope(null, misbehaviour.message))
          return true
        case "echoPassword": {
          const username = tokens.get(tokenOf(request) ?? "")
          const password = accounts.find((account) => account.username === username)?.password ?? ""
          json(response, 400, envelope(null, `Invalid request for account with password ${password}`))
          return true
        }
        case "expireTokens":
          tokens.clear()
          return false
        case "denyToken":
          json(response, 401, DENIED)
          return true
        default:
          return false
      }
    }

    const login = (request: RecordedRequest, response: Http.ServerResponse) => {
      const form = (typeof request.body === "object" && request.body !== null ? request.body : {}) as Record<
        string,
        unknown
      >
      if (
        !(request.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded") ||
        form.grant_type !== "password"
      ) {
        return json(response, 400, { error: "unsupported_grant_type" })
      }
      const account = accounts.find((one) => one.username === form.username && one.password === form.password)
      if (account === undefined) {
        return json(response, 400, {
          error: "invalid_grant",
          error_description: "The user name or password is incorrect."
        })
      }
      issued += 1
      logins += 1
      const token = `fake-mylerz-token-${issued}-${Math.random().toString(36).slice(2)}`
      tokens.set(token, account.username)
      return json(response, 200, {
        access_token: token,
        token_type: "bearer",
        ...(expiresIn === null ? {} : { expires_in: expiresIn })
      })
    }

    const route = (request: RecordedRequest, username: string, response: Http.ServerResponse) => {
      const { method, path } = request
      const body = request.body
      const owned = (barcode: unknown) => {
        const found = packages.get(String(barcode))
        return found !== undefined && found.username === username ? found : undefined
      }
      if (method === "POST" && !(request.headers["content-type"] ?? "").startsWith("application/json")) {
        return json(response, 415, {
          Message: "The request entity's media type is not supported for this resource."
        })
      }
      if (method === "GET" && path === "/api/packages/GetCityZoneList") return json(response, 200, envelope(CITIES))
      if (method === "POST" && path === "/api/Orders/AddOrders") {
        if (!Array.isArray(body) || body.length === 0) {
          return json(response, 200, envelope(null, "The orders list is empty"))
        }
        const results = (body as ReadonlyArray<Record<string, unknown>>).map((dto) => {
          const invalid = validateOrder(dto ?? {})
          if (invalid !== undefined) {
            return { BarCode: null, Reference: dto?.Reference ?? null, ErrorCode: "E100", ErrorMessage: invalid }
          }
          made += 1
          const barcode = String(20000000000000 + made)
          packages.set(barcode, { barcode, username, order: dto, history: [{ status: "Uploaded", date: clock }] })
          return {
            packageNo: 1,
            Reference: dto.Reference ?? null,
            BarCode: barcode,
            Status: "Uploaded",
            DestinationHubCode: "HUB-ALG",
            ErrorCode: null,
            ErrorMessage: null
          }
        })
        return json(
          response,
          200,
          envelope({
            PickupOrderCode: results.some((one) => one.BarCode !== null) ? `PU-${String(made).padStart(6, "0")}` : null,
            Packages: results,
            ErrorCode: null,
            ErrorMessage: null
          })
        )
      }
      if (method === "POST" && path === "/api/packages/TrackPackages") {
        if (!Array.isArray(body)) return json(response, 200, envelope(null, "The barcodes list is empty"))
        const rows = (body as ReadonlyArray<Record<string, unknown>>).flatMap((entry) => {
          const found = owned(entry?.Barcode)
          return found === undefined
            ? []
            : [
                {
                  Barcode: found.barcode,
                  TrackLog: found.history.map((step) => ({
                    StatusEnName: step.status,
                    StatusArName: null,
                    ChangedDate: `${step.date}.437`
                  }))
                }
              ]
        })
        return json(response, 200, envelope(rows))
      }
      if (method === "POST" && path === "/api/packages/CancelPackage") {
        if (!Array.isArray(body)) return json(response, 200, envelope(null, "The barcodes list is empty"))
        const rows = (body as ReadonlyArray<Record<string, unknown>>).map((entry) => {
          const found = owned(entry?.Barcode)
          if (found === undefined) {
            return {
              Barcode: entry?.Barcode ?? null,
              IsChanged: false,
              ErrorCode: "NF",
              ErrorMessage: "Package not found"
            }
          }
          const status = found.history.at(-1)?.status
          if (status !== "Uploaded" && status !== "Not Picked Yet") {
            return {
              Barcode: found.barcode,
              IsChanged: false,
              ErrorCode: "NA",
              ErrorMessage: `Package can not be cancelled in status ${status}`
            }
          }
          return { Barcode: found.barcode, IsChanged: true, ErrorCode: null, ErrorMessage: null }
        })
        return json(response, 200, envelope(rows))
      }
      if (method === "POST" && path === "/api/packages/GetAWB") {
        const barcode = (body as Record<string, unknown> | undefined)?.Barcode
        const found = owned(barcode)
        if (found === undefined) return json(response, 200, envelope(null, "Package not found"))
        return json(response, 200, envelope(awbOf(found.barcode).toString("base64")))
      }
      return json(response, 404, { Message: `No HTTP resource was found that matches the request URI '${path}'.` })
    }

    const fake = yield* FakeCourier.make<Own>({
      errorBody: (_status, message) => ({ Message: message }),
      misbehave,
      handle: (request, response) => {
        if (request.path === "/token") {
          return request.method === "POST" ? login(request, response) : json(response, 405, { Message: "Not allowed" })
        }
        const username = tokens.get(tokenOf(request) ?? "")
        if (username === undefined) return json(response, 401, DENIED)
        return route(request, username, response)
      }
    })
    const packageNamed = (barcode: string) => {
      const found = packages.get(barcode)
      if (found === undefined) throw new Error(`the fake has no package ${barcode}`)
      return found
    }
    const mylerz: Fake = {
      ...fake,
      packages,
      logins: () => logins,
      addStatus: (barcode, status) => {
        packageNamed(barcode).history.push({ status, date: clock })
      },
      setClock: (local) => {
        clock = local
      },
      expireTokens: () => tokens.clear()
    }
    return mylerz
  })

/** Starts the fake outside Effect (a script), until `close()`. */
export const start = (options: Options = {}) => FakeCourier.run(make(options))
