/**
 * The Mylerz API's wire shapes (`https://integration.algeria.mylerz.net`, an ASP.NET Web API behind an OAuth
 * password-grant token), as Mylerz's own generated help pages (`/Help`, request and response models without prose)
 * and the public integrations that call it describe them (README "Unverified"). Every answer but the token's is the
 * envelope `{ Value, IsErrorState, ErrorDescription, … }`; a body that fits none of these schemas is an undocumented
 * answer, never read by hand.
 */
import { Schema } from "effect"

const Text = Schema.NullOr(Schema.String)

/** `POST /token` (form: `grant_type=password`, `username`, `password`): the bearer token and its lifetime. */
export const Token = Schema.Struct({
  access_token: Schema.String.check(Schema.isNonEmpty()),
  token_type: Schema.optionalKey(Text),
  /** Seconds; not documented for Mylerz (OAuth's field): absent, the token is kept for an hour. */
  expires_in: Schema.optionalKey(Schema.NullOr(Schema.Number))
})

/** The token endpoint's refusal, OAuth's: `invalid_grant` for a wrong username or password. */
export const TokenRefusal = Schema.Struct({
  error: Schema.String,
  error_description: Schema.optionalKey(Text)
})

/** Every API answer: the value, or `IsErrorState: true` with Mylerz's words in `ErrorDescription`. */
export const envelope = <S extends Schema.Top>(value: S) =>
  Schema.Struct({
    Value: value,
    IsErrorState: Schema.optionalKey(Schema.Literal(false))
  })

/** A refusal in the envelope. */
export const Refusal = Schema.Struct({
  IsErrorState: Schema.Literal(true),
  ErrorDescription: Schema.optionalKey(Text)
})

/** ASP.NET's own body on a refused token (401) and on errors it raises itself: `{ Message }`. */
export const Message = Schema.Struct({ Message: Schema.String })

/** One piece of a package, as `AddOrders` takes it. */
export const Piece = Schema.Struct({ PieceNo: Schema.Int, Weight: Schema.Number })

/**
 * One order of `POST api/Orders/AddOrders` (the OrderDTO; the call takes a list). The address is Mylerz's: its city
 * (for Algeria, the wilaya as `GetCityZoneList` names it), the zone code as `Neighborhood`, the zone's name as
 * `District`, the street. Money in whole dinars.
 */
export const OrderDto = Schema.Struct({
  PickupDueDate: Schema.String,
  Package_Serial: Schema.optionalKey(Schema.String),
  Reference: Schema.optionalKey(Schema.String),
  Description: Schema.String,
  Total_Weight: Schema.Number,
  Service_Type: Schema.Literals(["DTD", "DTC", "CTD", "CTC"]),
  Service: Schema.Literals(["ND", "SD"]),
  Service_Category: Schema.String,
  Payment_Type: Schema.Literals(["COD", "PP"]),
  COD_Value: Schema.Number,
  Pieces: Schema.Array(Piece),
  Customer_Name: Schema.String,
  Mobile_No: Schema.String,
  Street: Schema.String,
  Country: Schema.String,
  City: Schema.String,
  Neighborhood: Schema.String,
  District: Schema.String,
  Address_Category: Schema.String,
  Special_Notes: Schema.optionalKey(Schema.String),
  AllowToOpenPackage: Schema.Boolean,
  ValueOfGoods: Schema.Number
})
export type OrderDto = typeof OrderDto.Type

/** A package `AddOrders` made (a barcode), or refused (no barcode, its `ErrorMessage`). */
export const CreatedPackage = Schema.Struct({
  BarCode: Schema.optionalKey(Text),
  Reference: Schema.optionalKey(Text),
  Status: Schema.optionalKey(Text),
  ErrorCode: Schema.optionalKey(Text),
  ErrorMessage: Schema.optionalKey(Text)
})

export const Created = envelope(
  Schema.Struct({
    PickupOrderCode: Schema.optionalKey(Text),
    Packages: Schema.Array(CreatedPackage),
    ErrorMessage: Schema.optionalKey(Text)
  })
)

/** One step of a package's history in `TrackPackages`. */
export const TrackStep = Schema.Struct({
  StatusEnName: Schema.String,
  ChangedDate: Schema.String
})

/** `POST api/packages/TrackPackages` (a list of `{ Barcode }`): each package's history, by barcode. */
export const Tracked = envelope(
  Schema.Array(
    Schema.Struct({
      Barcode: Schema.String,
      TrackLog: Schema.optionalKey(Schema.NullOr(Schema.Array(TrackStep)))
    })
  )
)

/** `POST api/packages/CancelPackage` (a list of `{ Barcode }`): whether each was cancelled, or why not. */
export const Cancelled = envelope(
  Schema.Array(
    Schema.Struct({
      Barcode: Schema.optionalKey(Text),
      IsChanged: Schema.Boolean,
      ErrorCode: Schema.optionalKey(Text),
      ErrorMessage: Schema.optionalKey(Text)
    })
  )
)

/** `POST api/packages/GetAWB` (`{ Barcode }`): the label's bytes, base64 (a .NET `byte[]` in JSON). */
export const Awb = envelope(Schema.String)

/** A zone of a city: for Algeria, a commune. */
export const Zone = Schema.Struct({
  Code: Schema.String,
  EnName: Schema.optionalKey(Text),
  ArName: Schema.optionalKey(Text)
})
export type Zone = typeof Zone.Type

/** A city with its zones: for Algeria, a wilaya and its communes. */
export const City = Schema.Struct({
  Code: Schema.String,
  EnName: Schema.optionalKey(Text),
  ArName: Schema.optionalKey(Text),
  Zones: Schema.optionalKey(Schema.NullOr(Schema.Array(Zone)))
})
export type City = typeof City.Type

/** `GET api/packages/GetCityZoneList`: every city Mylerz serves, with its zones. */
export const Cities = envelope(Schema.Array(City))

/** What a barcode looks like: Mylerz's help pages give `^\d{14}$` (Egypt); any run of 6 to 30 digits is read. */
export const barcodePattern = /^\d{6,30}$/
