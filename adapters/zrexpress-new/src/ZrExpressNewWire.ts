/**
 * The new ZR Express platform's wire shapes (`https://api.zrexpress.app/api/v1/…`, camelCase JSON, an ASP.NET API),
 * as the research notes document them (couriers.md §1.4) and, where the notes are silent on a body's exact shape, the
 * public OpenAPI index and integrations the README lists under "Unverified". Every response is decoded with one of
 * these schemas — a body that fits none of them is an undocumented answer, never read by hand.
 */
import { Dzd } from "@tawsil/domain"
import { Schema } from "effect"

export const Uuid = Schema.String.check(
  Schema.isPattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { message: "Expected a UUID" })
)

const Code = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Schema.Int))

// --- Requests ---------------------------------------------------------------------------------------------------

/** One condition of a search's `advancedFilter`. */
export interface Filter {
  readonly field: string
  readonly operator: "eq"
  readonly value: string
}

/** The body of `POST territories/search` and `POST workflows/search`: a page, optionally filtered. */
export interface Search {
  readonly pageNumber: number
  readonly pageSize: number
  readonly advancedFilter?: { readonly logic: "and"; readonly filters: ReadonlyArray<Filter> }
}

/** The body of `POST parcels` (the OpenAPI's `CreateParcelRequest`). */
export const CreateParcel = Schema.Struct({
  customer: Schema.Struct({
    /** A fresh UUID: ZR keys the parcel's customer by it; no existing customer record is needed. */
    customerId: Uuid,
    name: Schema.String,
    /** International form, `+213XXXXXXXXX`. */
    phone: Schema.Struct({ number1: Schema.String, number2: Schema.optionalKey(Schema.String) })
  }),
  /** Territory UUIDs, not codes or names: the wilaya (`city…`) and the commune (`district…`). */
  deliveryAddress: Schema.Struct({
    cityTerritoryId: Uuid,
    districtTerritoryId: Uuid,
    street: Schema.String
  }),
  orderedProducts: Schema.Array(
    Schema.Struct({
      productName: Schema.String,
      unitPrice: Schema.Number,
      quantity: Schema.Number,
      /**
       * Whose stock the product leaves: required by the platform ("StockType is required."). `none`: no stock of the
       * merchant's is kept at ZR (the OpenAPI's create description names `local` and `warehouse`).
       */
      stockType: Schema.Literals(["none", "local", "warehouse"])
    })
  ),
  deliveryType: Schema.Literals(["home", "pickup-point"]),
  /** For `pickup-point`: the hub (pickup point) the customer collects the parcel from. */
  hubId: Schema.optionalKey(Uuid),
  description: Schema.String,
  /** What the courier collects from the recipient, in DZD. */
  amount: Schema.Number,
  externalId: Schema.optionalKey(Schema.String),
  /** Kilograms. */
  weight: Schema.optionalKey(Schema.Struct({ weight: Schema.Number })),
  /**
   * The workflow state to create the parcel in: ReadyToDispatch, or the hub never picks it up. Absent for a parcel
   * held undispatched, which the platform creates in OrderReceived.
   */
  stateId: Schema.optionalKey(Uuid)
})
export type CreateParcel = typeof CreateParcel.Type

/** The body of `PATCH parcels/{id}/state` (the OpenAPI's `UpdateParcelStateRequest`). */
export const UpdateState = Schema.Struct({ parcelId: Uuid, newStateId: Uuid })
export type UpdateState = typeof UpdateState.Type

// --- Responses --------------------------------------------------------------------------------------------------

/** A page of a search: `items`, and whether another page follows. */
export const Page = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ items: Schema.Array(item), hasNext: Schema.optionalKey(Schema.NullOr(Schema.Boolean)) })

/** A wilaya (`level: "wilaya"`) or a commune (`level: "commune"`, `parentId` its wilaya). */
export const Territory = Schema.Struct({
  id: Uuid,
  code: Schema.optionalKey(Schema.NullOr(Code)),
  name: Schema.String,
  nameArabic: Schema.optionalKey(Schema.NullOr(Schema.String)),
  level: Schema.String,
  parentId: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** What the courier does there (courier-dz): deliver to the door, and to a pickup point. */
  delivery: Schema.optionalKey(
    Schema.NullOr(
      Schema.Struct({
        hasHomeDelivery: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
        hasPickupPoint: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
      })
    )
  )
})
export type Territory = typeof Territory.Type

export const Territories = Page(Territory)

const Text = Schema.optionalKey(Schema.NullOr(Schema.String))

/**
 * A hub of `POST hubs/search` (courier-dz's `getOffices`): its UUID (a pickup-point parcel's `hubId`), whether it is
 * a pickup point, and its address with the territory UUIDs of its wilaya (`cityTerritoryId`) and commune.
 */
export const Hub = Schema.Struct({
  id: Uuid,
  name: Schema.String.check(Schema.isNonEmpty()),
  isPickupPoint: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
  address: Schema.optionalKey(
    Schema.NullOr(
      Schema.Struct({
        city: Text,
        district: Text,
        cityTerritoryId: Text,
        districtTerritoryId: Text,
        street: Text
      })
    )
  ),
  phone: Schema.optionalKey(Schema.NullOr(Schema.Struct({ number1: Text, number2: Text, number3: Text })))
})
export type Hub = typeof Hub.Type

export const Hubs = Page(Hub)

/** A parcel workflow and its states, each with the id `stateId`/`newStateId` take. */
export const Workflow = Schema.Struct({
  id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  states: Schema.Array(Schema.Struct({ id: Uuid, name: Schema.String }))
})
export type Workflow = typeof Workflow.Type

export const Workflows = Page(Workflow)

/** `POST parcels` (201): only the new parcel's id — its tracking number has to be read back. */
export const Created = Schema.Struct({ id: Uuid })

/** `GET parcels/{id or tracking number}`: the fields read (the rest is not). */
export const Parcel = Schema.Struct({
  id: Uuid,
  trackingNumber: Schema.String.check(Schema.isNonEmpty()),
  state: Schema.Struct({ id: Schema.optionalKey(Schema.NullOr(Schema.String)), name: Schema.String }),
  lastStateUpdateAt: Schema.optionalKey(Schema.NullOr(Schema.String)),
  createdAt: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type Parcel = typeof Parcel.Type

/** `PATCH parcels/{id}/state`: the state the parcel is now in. */
export const StateChanged = Schema.Struct({
  parcelId: Uuid,
  newStateId: Uuid,
  newStateName: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** A workflow state as ZR's answers carry it (the OpenAPI's state object; only its name is read). */
const StateRef = Schema.Struct({
  id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  name: Schema.String.check(Schema.isNonEmpty())
})

/**
 * One row of `GET parcels/{id}/state-history`, as the OpenAPI (`swagger/public-v1`) defines it, `ParcelStateHistoryDto`:
 * the state the parcel moved to (`newState`) and when (`createdAt`); `previousState`, `modifiedBy`, `location`,
 * `comment` and `situations` are not read.
 */
export const StateHistoryDto = Schema.Struct({
  createdAt: Schema.String,
  newState: StateRef
})

/** The same row as one integrator's types flatten it: `{ stateName, stateDate }`. */
export const StateHistoryFlat = Schema.Struct({
  stateName: Schema.String.check(Schema.isNonEmpty()),
  stateDate: Schema.String
})

export const StateHistoryRow = Schema.Union([StateHistoryDto, StateHistoryFlat])
export type StateHistoryRow = typeof StateHistoryRow.Type

export const StateHistory = Schema.Array(StateHistoryRow)

const Amount = Schema.Union([Schema.Finite, Schema.FiniteFromString]).pipe(Schema.decodeTo(Dzd.Dzd))

/** One destination of `GET delivery-pricing/rates`: a wilaya or a commune, priced per delivery type. */
export const Rate = Schema.Struct({
  toTerritoryId: Schema.String,
  toTerritoryCode: Schema.optionalKey(Schema.NullOr(Code)),
  toTerritoryName: Schema.optionalKey(Schema.NullOr(Schema.String)),
  toTerritoryLevel: Schema.String,
  /**
   * `deliveryType` is `home`, `pickup-point` or `return`; `discountedPrice`, when the account has a discount there,
   * is what it pays.
   */
  deliveryPrices: Schema.Array(
    Schema.Struct({
      deliveryType: Schema.String,
      price: Amount,
      discountedPrice: Schema.optionalKey(Schema.NullOr(Amount))
    })
  )
})
export type Rate = typeof Rate.Type

export const Rates = Schema.Struct({ rates: Schema.Array(Rate) })

/** `POST parcels/labels/individual/pdf`: the parcels to label. */
export interface LabelsRequest {
  readonly trackingNumbers: ReadonlyArray<string>
}

/**
 * Its answer: a file per labelled parcel (`fileUrl`, a pre-signed address on a storage host, the PDF), and the
 * numbers it could not label. The shape every integration found reads (`parcelLabelFiles[].fileUrl`,
 * `failedTrackingNumbers`).
 */
export const LabelFiles = Schema.Struct({
  parcelLabelFiles: Schema.Array(
    Schema.Struct({
      trackingNumber: Schema.optionalKey(Schema.NullOr(Schema.String)),
      fileUrl: Schema.String
    })
  ),
  failedTrackingNumbers: Schema.optionalKey(Schema.NullOr(Schema.Array(Schema.String)))
})
export type LabelFiles = typeof LabelFiles.Type

/**
 * ASP.NET's error body (RFC 9457 problem details): `title`, `detail`, and for a validation failure `errors`, either
 * `{ field: [messages] }` or a list of `{ name, reason }`-like entries.
 */
export const Problem = Schema.Struct({
  title: Schema.optionalKey(Schema.NullOr(Schema.String)),
  detail: Schema.optionalKey(Schema.NullOr(Schema.String)),
  errors: Schema.optionalKey(
    Schema.NullOr(
      Schema.Union([
        Schema.Record(Schema.String, Schema.Array(Schema.String)),
        Schema.Array(
          Schema.Struct({
            name: Schema.optionalKey(Schema.NullOr(Schema.String)),
            code: Schema.optionalKey(Schema.NullOr(Schema.String)),
            reason: Schema.optionalKey(Schema.NullOr(Schema.String)),
            description: Schema.optionalKey(Schema.NullOr(Schema.String)),
            message: Schema.optionalKey(Schema.NullOr(Schema.String))
          })
        )
      ])
    )
  )
})
export type Problem = typeof Problem.Type
