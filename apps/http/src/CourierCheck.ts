/**
 * The operator's live check of one courier (`npm run couriers:check`, docs/adapters.md "Checking an adapter against
 * its courier"): with a merchant's credentials, only reads — the credential check, the communes, desks and fees of
 * the wilayas asked, and the tracking of the numbers the operator names — through the host's own core and transport
 * (egress rules, pacing under the courier's declared limits), each answer recorded as it came. The report says what
 * was read, every answer the adapter could not read (its wire schema refused it: the adapter and the courier
 * disagree), and every raw status its table does not know. The recordings are scrubbed of the credentials and of
 * every customer datum (`Recorded`), in the shape the adapters' tests replay.
 */
import { type CourierAdapter, CourierHttp, Recorded, Shipment } from "@tawsil/courier"
import { WilayaCode } from "@tawsil/domain"
import { Communes } from "@tawsil/reference"
import { type Catalogue, Shipping } from "@tawsil/shipping"
import { Effect, Layer, Schema } from "effect"

export interface Options {
  readonly courier: string
  /** The courier's credential fields, as a caller sends them. */
  readonly credentials: Readonly<Record<string, string>>
  readonly baseUrl?: string | undefined
  readonly fromWilaya?: number | undefined
  /** The wilayas whose communes, desks and fees are read. */
  readonly wilayas: ReadonlyArray<number>
  /** Parcels to track, the operator's own (the check creates none). */
  readonly trackingNumbers: ReadonlyArray<string>
  readonly timeoutMs?: number | undefined
}

/**
 * One read and what came of it: `ok`; `unreadable`, an answer the adapter could not read (its wire schema, or its
 * mapping, refused it); `failed`, any other failure (refused, unreachable, limited); `skipped`, a capability the
 * adapter does not declare.
 */
export interface Step {
  readonly name: string
  readonly outcome: "ok" | "unreadable" | "failed" | "skipped"
  readonly detail: string
}

export interface Report {
  readonly courier: string
  readonly platform: string
  readonly steps: ReadonlyArray<Step>
  /** Raw statuses the couriers' answers carried that the adapter's tables do not list, with a parcel showing each. */
  readonly unknownStatuses: ReadonlyArray<{ readonly rawStatus: string; readonly trackingNumber: string }>
  /** Every request and answer, scrubbed, in the order they were made. */
  readonly exchanges: ReadonlyArray<Recorded.Exchange>
}

/** The environment variable a credential field is read from: `apiToken` → `COURIER_API_TOKEN`. */
export const credentialVariable = (field: string) =>
  `COURIER_${field
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .toUpperCase()}`

export class UnknownCourier extends Schema.TaggedError<UnknownCourier>()("UnknownCourier", {
  courier: Schema.String
}) {
  override get message() {
    return `no installed adapter serves the courier ${JSON.stringify(this.courier)} (npm run docs:couriers lists them)`
  }
}

/** Whether the report found nothing to look into: every read done, every answer read, every status known. */
export const isClean = (report: Report) =>
  report.unknownStatuses.length === 0 &&
  report.steps.every((step) => step.outcome === "ok" || step.outcome === "skipped")

const outcomeOf = (error: Shipping.ShippingError): Step["outcome"] =>
  error._tag === "CourierError"
    ? error.reason._tag === "BadResponse"
      ? "unreadable"
      : error.reason._tag === "Unsupported"
        ? "skipped"
        : "failed"
    : "failed"

/**
 * Runs the check of `options.courier` in `catalogue`, through `transport` (the host's: egress rules, the pacing of
 * declared limits) and the reference communes.
 */
export const run = (catalogue: Catalogue.Catalogue, options: Options) =>
  Effect.gen(function* () {
    const resolved = catalogue.resolve(options.courier)
    if (resolved === undefined) return yield* new UnknownCourier({ courier: options.courier })
    const { adapter, manifest } = resolved
    const real = yield* Shipping.Transport
    const communes = yield* Communes.Communes
    const answers: Array<{
      readonly step: string
      readonly request: CourierHttp.CourierRequest
      readonly response: CourierHttp.CourierResponse
    }> = []
    const steps: Array<Step> = []
    const unknownStatuses: Array<{ rawStatus: string; trackingNumber: string }> = []
    /** Every raw status the answers carried, known or not: kept in the recordings wherever it appears. */
    const seen = new Set<string>([...Object.keys(adapter.statuses), ...Object.keys(adapter.codStatuses ?? {})])
    let current = ""
    // Every answer is kept as the transport hands it over, before the core's own blanking of credentials; it is
    // scrubbed once every status is known (`recorded`).
    const recording = Shipping.Transport.of({
      bind: (bind) => {
        const http = real.bind(bind)
        return CourierHttp.CourierHttp.of({
          request: (request) =>
            Effect.tap(http.request(request), (response) =>
              Effect.sync(() => {
                answers.push({ step: current, request, response })
              })
            )
        })
      }
    })
    /** The answers scrubbed of the credentials and of customers' data; parcels' answers keep only what tracking reads. */
    const recorded = () =>
      answers.map(({ step, request, response }) =>
        Recorded.record({
          courier: manifest.key,
          step,
          request,
          response,
          secrets: Object.values(options.credentials),
          kind: /^(track|checkCredentials)/.test(step) ? "parcels" : "reference",
          keep: seen
        })
      )
    const shipping = yield* Shipping.Shipping.pipe(
      Effect.provide(
        Shipping.Shipping.layer(catalogue, { communes }).pipe(
          Layer.provide(Layer.succeed(Shipping.Transport, recording))
        )
      )
    )
    const call: Shipping.CourierCall = {
      courier: manifest.key,
      credentials: options.credentials,
      options: {
        ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
        ...(options.fromWilaya === undefined ? {} : { fromWilaya: WilayaCode.WilayaCode.make(options.fromWilaya) }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs })
      }
    }
    const declares = (capability: keyof CourierAdapter.Any["capabilities"]) => adapter.capabilities[capability]
    const step = <A, R>(
      name: string,
      capability: keyof CourierAdapter.Any["capabilities"],
      read: Effect.Effect<A, Shipping.ShippingError, R>,
      describe: (value: A) => string
    ) =>
      Effect.gen(function* () {
        current = name
        if (!declares(capability)) {
          steps.push({ name, outcome: "skipped", detail: `${manifest.name} has no ${capability}` })
          return undefined
        }
        const asked = answers.length
        const result = yield* Effect.result(read)
        if (result._tag === "Success") {
          steps.push({ name, outcome: "ok", detail: describe(result.success) })
          return result.success
        }
        const { failure } = result
        // A refusal with nothing sent is the adapter's own rule (a delivery type the courier does not offer): no read.
        const unasked = failure._tag === "CourierError" && failure.reason._tag === "Refused" && answers.length === asked
        steps.push({ name, outcome: unasked ? "skipped" : outcomeOf(failure), detail: failure.message })
        return undefined
      })
    const noteStatuses = (trackingNumber: string, events: ReadonlyArray<{ readonly rawStatus: string }>) => {
      for (const { rawStatus } of events) {
        seen.add(rawStatus)
        const known =
          Object.hasOwn(adapter.statuses, rawStatus) ||
          (adapter.codStatuses !== undefined && Object.hasOwn(adapter.codStatuses, rawStatus))
        if (!known && !unknownStatuses.some((seen) => seen.rawStatus === rawStatus)) {
          unknownStatuses.push({ rawStatus, trackingNumber })
        }
      }
    }

    const credentials = yield* step("checkCredentials", "checkCredentials", shipping.checkCredentials(call), (check) =>
      check._tag === "Accepted" ? "accepted" : `refused: ${check.message}`
    )
    if (credentials?._tag === "Rejected") {
      steps[steps.length - 1] = { ...steps[steps.length - 1]!, outcome: "failed" }
      return {
        courier: manifest.key,
        platform: adapter.platform,
        steps,
        unknownStatuses,
        exchanges: recorded()
      } satisfies Report
    }

    for (const code of options.wilayas) {
      const wilayaCode = WilayaCode.WilayaCode.make(code)
      // The courier's commune list, read as a create reads it: the wilaya's first commune in the reference data.
      const first = (yield* Effect.orElseSucceed(communes.list(wilayaCode), () => []))[0]
      if (first !== undefined) {
        yield* step(
          `communes ${code}`,
          "communes",
          shipping.resolveCommune({ call, wilayaCode, communeName: first.name }).pipe(
            Effect.map(({ courier }) =>
              courier === undefined
                ? `read; ${first.name} not listed`
                : `read; ${first.name} is ${JSON.stringify(courier.name)}${courier.id === undefined ? "" : ` (${courier.id})`}`
            ),
            // The list was read: that the courier does not serve this one commune is its answer, not a failure.
            Effect.catchTag("CommuneNotServed", (error) => Effect.succeed(`read; ${error.message}`))
          ),
          (detail) => detail
        )
      }
      yield* step(`stopDesks ${code}`, "stopDesks", shipping.stopDesks({ ...call, wilayaCode }), (desks) =>
        desks.length === 0
          ? "none"
          : `${desks.length}: ${desks
              .slice(0, 3)
              .map((desk) => `${desk.id} ${desk.name}`)
              .join(", ")}${desks.length > 3 ? ", …" : ""}`
      )
      for (const deliveryType of ["home", "stopdesk"] as const) {
        yield* step(
          `rates ${options.fromWilaya ?? "-"}→${code} ${deliveryType}`,
          "rates",
          shipping.rates({
            ...call,
            query: Shipment.RatesQuery.make({
              toWilaya: wilayaCode,
              deliveryType,
              ...(options.fromWilaya === undefined
                ? {}
                : { fromWilaya: WilayaCode.WilayaCode.make(options.fromWilaya) })
            })
          }),
          (rates) => `${rates.deliveryFee} DA delivery, ${rates.total} DA in all`
        )
      }
    }

    if (options.trackingNumbers.length > 1 && declares("trackBatch")) {
      const items = yield* step(
        `trackBatch ${options.trackingNumbers.length}`,
        "trackBatch",
        shipping.trackBatch({ ...call, trackingNumbers: options.trackingNumbers }),
        (items) => `${items.filter((item) => "result" in item).length} of ${items.length} read`
      )
      for (const item of items ?? []) {
        if ("result" in item) {
          noteStatuses(item.trackingNumber, item.result.events)
          steps.push({
            name: `  ${item.trackingNumber}`,
            outcome: "ok",
            detail: `${item.result.status}, ${item.result.events.length} events`
          })
        } else {
          steps.push({ name: `  ${item.trackingNumber}`, outcome: outcomeOf(item.error), detail: item.error.message })
        }
      }
    } else {
      for (const trackingNumber of options.trackingNumbers) {
        const result = yield* step(
          `track ${trackingNumber}`,
          "track",
          shipping.track({ ...call, trackingNumber }),
          (result) =>
            `${result.status}, ${result.events.length} events: ${result.events.map((event) => event.rawStatus).join(" → ")}`
        )
        if (result !== undefined) noteStatuses(trackingNumber, result.events)
      }
    }
    return {
      courier: manifest.key,
      platform: adapter.platform,
      steps,
      unknownStatuses,
      exchanges: recorded()
    } satisfies Report
  })

/** The report as the operator reads it. */
export const render = (report: Report, name: string): string => {
  const width = Math.max(...report.steps.map((step) => step.name.length), 10)
  const mark = { ok: "ok  ", unreadable: "READ", failed: "FAIL", skipped: "--  " } as const
  const lines = [
    `couriers:check ${report.courier} (${name}, platform ${report.platform}): reads only`,
    ...report.steps.map((step) => `  ${mark[step.outcome]} ${step.name.padEnd(width)}  ${step.detail}`)
  ]
  const unreadable = report.steps.filter((step) => step.outcome === "unreadable")
  if (unreadable.length > 0) {
    lines.push(
      `${unreadable.length} answer(s) the adapter could not read (READ): the adapter and the courier disagree;` +
        " record them (--record) and open an issue with the files"
    )
  }
  for (const { rawStatus, trackingNumber } of report.unknownStatuses) {
    lines.push(`raw status not in the adapter's table: ${JSON.stringify(rawStatus)} (parcel ${trackingNumber})`)
  }
  if (isClean(report)) lines.push("every read answered, every answer read, every status known")
  return `${lines.join("\n")}\n`
}
