/**
 * The parcel an order becomes (docs/cod-loop.md, "The order and its shipment"): what `POST /v1/orders/{id}/shipment`
 * takes, and the shipping API's one request shape (`ParcelOrder`) built from the order — recipient, delivery, the
 * order number as reference, the cash to collect, a product list from its lines. Pure.
 */
import { Shipment } from "@tawsil/courier"
import { FieldIssues, StoreText, WilayaCode } from "@tawsil/domain"
import type { OrderViews } from "@tawsil/orders"
import { Result, Schema } from "effect"
import { decodeBody } from "./internal/body.ts"

const text = (minimum: number, maximum: number) =>
  Schema.String.check(Schema.isBetweenLength(minimum, maximum), StoreText.storable())

/** `POST /v1/orders/{id}/shipment`. */
export const ShipBody = Schema.Struct({
  /** The store's courier account to ship with (`GET /v1/shipping/accounts`). */
  account_id: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 2_147_483_647 })),
  /** The order's own delivery type when absent (`desk` is a stop desk). */
  delivery_type: Schema.optionalKey(Shipment.DeliveryType),
  /** The courier's desk (`POST /v1/stop-desks` of the shipping API), for a stop-desk delivery. */
  stop_desk_id: Schema.optionalKey(text(1, 64)),
  tier: Schema.optionalKey(Shipment.Tier),
  /**
   * `false` creates the parcel without handing it to the courier, where the platform separates the two (`dispatch`
   * in `GET /v1/couriers`): the order goes to `processing` and the parcel can still be cancelled until
   * `POST /v1/orders/{id}/shipment/dispatch`. Default `true`.
   */
  dispatch: Schema.optionalKey(Schema.Boolean),
  weight_kg: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1000 }))),
  free_shipping: Schema.optionalKey(Schema.Boolean),
  has_open_package: Schema.optionalKey(Schema.Boolean),
  is_exchange: Schema.optionalKey(Schema.Boolean),
  /** For the courier's driver. */
  notes: Schema.optionalKey(text(0, 255)),
  /** Where the parcel leaves from, for couriers that route or price by origin; the store's `origin_wilaya` if absent. */
  from_wilaya: Schema.optionalKey(WilayaCode.WilayaCode)
}).annotate({ identifier: "ShipOrder" })
export type ShipBody = typeof ShipBody.Type

export const parseShip: (body: unknown) => Result.Result<ShipBody, string> = decodeBody(
  ShipBody,
  "{ account_id, delivery_type?, stop_desk_id?, tier?, dispatch?, weight_kg?, free_shipping?, notes?, … }"
)

/** Couriers take a product list of at most this many characters. */
export const PRODUCT_LIST_MAX = 500

/** `2x Robe kabyle (Taille: XL), 1x Foulard`, cut with `…` at `PRODUCT_LIST_MAX`. */
export const productList = (items: OrderViews.OrderDetail["items"], names: ReadonlyMap<number, string>): string => {
  const lines = items.map((item) => {
    const name = names.get(item.product_id) ?? `Product ${item.product_id}`
    const variants = item.variants.map((variant) => `${variant.group_name}: ${variant.option_name}`).join(", ")
    return `${item.quantity}x ${name}${variants === "" ? "" : ` (${variants})`}`
  })
  const list = lines.join(", ")
  if (list.length <= PRODUCT_LIST_MAX) return list
  // A character outside the basic plane is two UTF-16 units: the cut never leaves half of one (a lone surrogate,
  // which no courier's database keeps).
  const cut = PRODUCT_LIST_MAX - 1
  const high = list.charCodeAt(cut - 1)
  return `${list.slice(0, high >= 0xd800 && high <= 0xdbff ? cut - 1 : cut)}…`
}

/** The cash the courier collects: the order's total for a cash-on-delivery order, rounded to the dinar; else 0. */
export const codAmount = (order: OrderViews.OrderDetail): number =>
  order.payment_method === "cod" ? Math.round(order.amounts.total) : 0

/**
 * The parcel of `order`: checked by the shipping API's own schema (`ParcelOrder`), so an order the couriers cannot
 * take (a name of one letter, an address over 255 characters) is refused here with the field named, before any
 * courier is asked.
 */
export const fromOrder = (
  order: OrderViews.OrderDetail,
  names: ReadonlyMap<number, string>,
  body: ShipBody
): Result.Result<Shipment.ParcelOrder, string> => {
  if (order.delivery.type === "digital") return Result.fail(`Order ${order.id} is a digital order: it has no parcel`)
  const deliveryType = body.delivery_type ?? (order.delivery.type === "desk" ? "stopdesk" : "home")
  const parcel = {
    reference: order.order_number,
    recipient: {
      fullName: order.customer.name,
      phone: order.customer.phone,
      wilayaCode: order.customer.wilaya_id,
      communeName: order.customer.commune,
      ...(order.customer.address.trim() === "" ? {} : { addressLine: order.customer.address })
    },
    deliveryType,
    ...(body.stop_desk_id === undefined ? {} : { stopDeskId: body.stop_desk_id }),
    ...(body.tier === undefined ? {} : { tier: body.tier }),
    productList: productList(order.items, names),
    codAmount: codAmount(order),
    ...(body.weight_kg === undefined ? {} : { weightKg: body.weight_kg }),
    ...(body.free_shipping === undefined ? {} : { freeShipping: body.free_shipping }),
    ...(body.has_open_package === undefined ? {} : { hasOpenPackage: body.has_open_package }),
    ...(body.is_exchange === undefined ? {} : { isExchange: body.is_exchange }),
    ...(body.notes === undefined ? {} : { notes: body.notes })
  }
  const decoded = Schema.decodeUnknownResult(Shipment.ParcelOrder)(parcel, { errors: "all" })
  if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
  const issues = FieldIssues.fromIssue(decoded.failure.issue)
  return Result.fail(
    `Order ${order.id} cannot be sent to a courier as it is: ${Object.entries(issues)
      .map(([field, message]) => `${field}: ${message}`)
      .join("; ")}`
  )
}
