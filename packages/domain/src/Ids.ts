/**
 * Ids of the store API, each a positive integer under its own brand so one cannot be passed for another, the
 * bound every stored id keeps (`MAX_ID`), the path id as a URL carries it, and the request id we echo from a
 * caller's `X-Request-Id`.
 */
import { Schema, SchemaTransformation } from "effect"
import { integer } from "./internal/integer.ts"

/**
 * The largest id a row of ours can have: PostgreSQL's `integer`, the type of every id column (and of the counts
 * stored beside them). A larger number cannot be stored, so it names nothing.
 */
export const MAX_ID = 2_147_483_647

/** Whether `id` can name a row at all: a whole number from 1 to {@link MAX_ID}. A lookup answers not found otherwise. */
export const isStorableId = (id: number): boolean => Number.isSafeInteger(id) && id >= 1 && id <= MAX_ID

const ALL_DIGITS = "must be all digits"

/**
 * An id in a URL path: 1 to 20 digits, decoded to a number; any other text fails with "must be all digits". The
 * number may still name nothing (`0`, or past {@link MAX_ID}): the package that looks it up answers its not found.
 */
export const PathId = Schema.String.annotate({ message: ALL_DIGITS })
  .check(Schema.isPattern(/^[0-9]{1,20}$/, { message: ALL_DIGITS }))
  .pipe(Schema.decodeTo(Schema.Number, SchemaTransformation.numberFromString))
export type PathId = typeof PathId.Type

const Id = integer({ minimum: 1 }, "Expected an id, a positive integer")

export const StoreId = Id.pipe(Schema.brand("StoreId"))
export type StoreId = typeof StoreId.Type

export const OrderId = Id.pipe(Schema.brand("OrderId"))
export type OrderId = typeof OrderId.Type

export const CustomerId = Id.pipe(Schema.brand("CustomerId"))
export type CustomerId = typeof CustomerId.Type

export const ProductId = Id.pipe(Schema.brand("ProductId"))
export type ProductId = typeof ProductId.Type

export const LandingPageId = Id.pipe(Schema.brand("LandingPageId"))
export type LandingPageId = typeof LandingPageId.Type

/** 1 to 128 characters a log line and a header can carry unescaped. */
export const RequestId = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9._:-]{1,128}$/, {
    message: "Expected a request id, 1 to 128 characters among letters, digits and . _ : -"
  })
).pipe(Schema.brand("RequestId"))
export type RequestId = typeof RequestId.Type
