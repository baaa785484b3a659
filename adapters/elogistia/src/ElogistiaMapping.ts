/**
 * Pure translation between Tawsil's one request shape and Elogistia's API: the request bodies and queries, and
 * every answer read back — a result, or the `CourierErrorReason` it means. No HTTP client here: the adapter sends
 * what this builds and hands back what it got, so every rule is tested without a network.
 *
 * Reading an answer is the SDK's (`CourierAnswer.reader`: JSON through the wire schemas, 429 and `Retry-After`, 5xx,
 * 401 and 403, redirects, bodies that are not JSON); what is Elogistia's own is in {@link answers}: where and in
 * which words it refuses. Messages are built from status codes and the courier's own words only, never from the
 * request: nothing the caller sent (least of all the API token) is echoed.
 */
import { type CourierAdapter, CourierAnswer, CourierError, type CourierHttp, Shipment } from "@tawsil/courier"
import type { Dzd } from "@tawsil/domain"
import { Option, Result, Schema } from "effect"
import * as Wire from "./ElogistiaWire.ts"

type Reason = CourierError.CourierErrorReason
type Response = CourierHttp.CourierResponse

const present = (text: string | undefined): text is string => text !== undefined && text.trim() !== ""

export const toCreateParcel = (order: Shipment.ParcelOrder): Wire.CreateParcel => {
  const { recipient } = order
  return {
    ...(present(order.reference) ? { reference: order.reference } : {}),
    recipient: {
      name: recipient.fullName,
      phone: recipient.phone,
      wilaya: recipient.wilayaCode,
      commune: recipient.communeName,
      ...(present(recipient.addressLine) ? { address: recipient.addressLine } : {})
    },
    delivery: order.deliveryType === "stopdesk" ? "desk" : "home",
    ...(order.deliveryType === "stopdesk" && order.stopDeskId !== undefined ? { desk_id: order.stopDeskId } : {}),
    cod: order.codAmount,
    products: order.productList
  }
}

/**
 * How Elogistia answers, besides what every courier shares: a refusal is `{ "error": "…" }` on a 4xx, in the
 * courier's own words; a refused token is "the API token".
 */
export const answers = CourierAnswer.reader({
  credentials: "the API token",
  refusal: (status, body) => {
    const failure = Schema.decodeUnknownOption(Wire.Failure)(body)
    return status >= 400 && Option.isSome(failure) && failure.value.error.trim() !== ""
      ? new CourierError.Refused({ message: CourierAnswer.clean(failure.value.error) })
      : undefined
  }
})

/** What a failed answer means. */
export const errorOf = answers.errorOf

export const fromCreated = (response: Response): Result.Result<CourierAdapter.CreatedParcel, Reason> =>
  Result.map(answers.decode(Wire.Created, response), ({ status, tracking }) => ({
    trackingNumber: tracking,
    rawStatus: status
  }))

export const fromEvents = (response: Response): Result.Result<ReadonlyArray<CourierAdapter.RawEvent>, Reason> =>
  Result.map(answers.decode(Wire.Events, response), ({ events }) =>
    events.map(({ at, status }) => ({ rawStatus: status, timestamp: at }))
  )

export const toRatesQuery = (query: Shipment.RatesQuery): Readonly<Record<string, string>> => ({
  to: String(query.toWilaya)
})

const zero = 0 as Dzd.Dzd

export const fromRates = (
  query: Shipment.RatesQuery,
  response: Response
): Result.Result<Shipment.RatesResult, Reason> =>
  Result.flatMap(answers.decode(Wire.Rates, response), (rates) => {
    const options = [
      Shipment.RateOption.make({ deliveryType: "home", deliveryFee: rates.home, returnFee: rates.return }),
      ...(rates.desk === null
        ? []
        : [Shipment.RateOption.make({ deliveryType: "stopdesk", deliveryFee: rates.desk, returnFee: rates.return })])
    ]
    const asked = options.find((option) => option.deliveryType === query.deliveryType)
    if (asked === undefined) {
      return Result.fail(new CourierError.Refused({ message: `no ${query.deliveryType} delivery to this wilaya` }))
    }
    return Result.succeed(
      Shipment.RatesResult.make({
        deliveryType: asked.deliveryType,
        deliveryFee: asked.deliveryFee,
        returnFee: asked.returnFee,
        codFee: zero,
        total: asked.deliveryFee,
        currency: "DZD",
        options
      })
    )
  })

/** `GET /v1/parcels/{tracking}/label` answers the PDF itself; anything else on 200 is no label. */
export const fromLabel = (response: Response): Result.Result<CourierAdapter.Label, Reason> => {
  if (response.status !== 200) return Result.fail(errorOf(response))
  return CourierAnswer.isPdf(response.bytes)
    ? Result.succeed({ contentType: "application/pdf", bytes: response.bytes })
    : Result.fail(new CourierError.BadResponse({ message: "the courier's label is not a PDF" }))
}
