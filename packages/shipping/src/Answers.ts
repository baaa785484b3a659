/**
 * What the shipping API answers, shaped from the gateway's results: a desk without the fields its courier left out,
 * a credential check and a commune under the courier's catalogue key, a batch's and a comparison's failures as the
 * items the single call would answer. Pure functions; a failure's wire code is the host's to give (`ItemError`), as
 * the API's error table lives with the contract.
 */
import type { CourierAdapter, Shipment } from "@tawsil/courier"
import { Result } from "effect"
import type * as Catalogue from "./Catalogue.ts"
import type * as CommuneCheck from "./CommuneCheck.ts"
import type * as Gateway from "./Gateway.ts"
import type * as RateComparison from "./RateComparison.ts"
import type * as Shipping from "./Shipping.ts"

/** One item's failure inside a batch or comparison: the code and message the single call would answer. */
export interface ItemError {
  readonly code: string
  readonly message: string
}

/** The catalogue key of a courier named by key or alias (the name as sent when the catalogue has none). */
const keyOf = (catalogue: Catalogue.Catalogue, courier: string) => catalogue.resolve(courier)?.entry.key ?? courier

/** A desk as listed: the fields its courier gave, none set to nothing. */
export const stopDesk = ({ id, name, wilayaCode, communeName, address, phone }: CourierAdapter.StopDesk) => ({
  id,
  name,
  wilayaCode,
  ...(communeName === undefined ? {} : { communeName }),
  ...(address === undefined ? {} : { address }),
  ...(phone === undefined ? {} : { phone })
})

/**
 * A desk as dzship's `POST /v1/desks` answers it: `{ id, name, wilayaCode, communeName?, address? }`, the same desk
 * as {@link stopDesk} without the phone, which dzship's answer does not carry.
 */
export const desk = ({ id, name, wilayaCode, communeName, address }: CourierAdapter.StopDesk) => ({
  id,
  name,
  wilayaCode,
  ...(communeName === undefined ? {} : { communeName }),
  ...(address === undefined ? {} : { address })
})

/** Whether the courier (by its catalogue key) accepted the credentials, and its words when it did not. */
export const credentialsCheck = (
  catalogue: Catalogue.Catalogue,
  courier: string,
  check: Shipping.CredentialsCheck
) => ({
  courier: keyOf(catalogue, courier),
  valid: check._tag === "Accepted",
  ...(check._tag === "Rejected" ? { message: check.message } : {})
})

/**
 * A commune as resolved: the dataset's names and whether the name sent was exact; asked with a courier (`courier`),
 * its own entry (under its catalogue key) and how it delivers there, or that it does not list the commune.
 */
export const communeResolution = (
  catalogue: Catalogue.Catalogue,
  courier: string | undefined,
  resolved: CommuneCheck.Resolved
) => ({
  wilayaCode: resolved.commune.wilayaCode,
  nameFr: resolved.commune.name,
  nameAr: resolved.commune.nameAr,
  exact: resolved.exact,
  ...(courier === undefined
    ? {}
    : {
        courier: {
          key: keyOf(catalogue, courier),
          listed: resolved.courier !== undefined,
          ...(resolved.courier === undefined
            ? { home: false, stopdesk: false }
            : {
                name: resolved.courier.name,
                ...(resolved.courier.id === undefined ? {} : { id: resolved.courier.id }),
                home: resolved.courier.home,
                stopdesk: resolved.courier.stopdesk
              })
        }
      })
})

/** A batch track's results in the order asked: each parcel's timeline, or its failure as an item. */
export const batchTrack = (
  items: ReadonlyArray<Shipping.BatchItem>,
  itemError: (error: Shipping.ShippingError) => ItemError
) => ({
  results: items.map((item) =>
    "result" in item ? item.result : { trackingNumber: item.trackingNumber, error: itemError(item.error) }
  )
})

/** A comparison's quotes in the comparison's order: each courier's rates, or its failure as an item. */
export const comparison = (
  quotes: ReadonlyArray<RateComparison.Quote>,
  itemError: (error: Shipping.ShippingError | RateComparison.TimedOut) => ItemError
) => ({
  quotes: quotes.map((quote) =>
    quote._tag === "Priced"
      ? { index: quote.index, courier: quote.courier, rates: quote.rates }
      : { index: quote.index, courier: quote.courier, error: itemError(quote.error) }
  )
})

/**
 * A batch create's results in the order sent: each parcel, or its order's reference with the failure the single
 * create would answer; and how many of each.
 */
export const batchCreate = <E>(
  orders: ReadonlyArray<Shipment.ParcelOrder>,
  results: ReadonlyArray<Gateway.BatchCreated>,
  itemError: (error: Gateway.CreateError) => E
) => {
  const created = results.filter(Result.isSuccess).length
  return {
    results: results.map((result, index) =>
      Result.isSuccess(result)
        ? result.success
        : { reference: orders[index]?.reference ?? "", error: itemError(result.failure) }
    ),
    created,
    failed: results.length - created
  }
}

/** A label sheet as answered: the merged PDF, its pages, each parcel's place in it, and the parcels left out. */
export const labelSheet = (merged: Gateway.MergedLabels, itemError: (error: Shipping.ShippingError) => ItemError) => ({
  ...(merged.pdf === undefined ? {} : { pdf: merged.pdf }),
  pageCount: merged.labels.reduce((pages, label) => pages + label.pages, 0),
  labels: merged.labels,
  errors: merged.errors.map(({ index, trackingNumber, error }) => ({ index, trackingNumber, error: itemError(error) }))
})
