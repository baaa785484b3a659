/**
 * The store tools: a merchant's orders, their shipments and the change history, each answered by one call of
 * `@tawsil/client`'s store client with the request's store key (`StoreKey.ts`). A key's scopes decide which tools
 * exist: each toolkit here names the scopes that show it, and a key holding none of them sees none of its tools.
 *
 * Every store write takes a required `idempotencyKey` (the store API requires one on every write); the writes that
 * create, cancel, spend or undo are marked destructive and their descriptions tell the agent to ask the user first.
 */
import { Change } from "@tawsil/changes"
import { OrderStatus, OrderViews } from "@tawsil/orders"
import * as Parcel from "@tawsil/shipments/Parcel"
import { Effect, Schema } from "effect"
import { Tool, Toolkit } from "effect/ai"
import { Sessions, StoreKey, sessionOf } from "./StoreKey.ts"
import * as ToolFailure from "./ToolFailure.ts"
import * as ToolSchemas from "./ToolSchemas.ts"

const ASK_FIRST = "Ask the user first: say what will change and call it only once they agree."

const Id = (what: string) =>
  Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 2_147_483_647 })).annotate({
    description: `The ${what}'s id`
  })

const Page = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ items: Schema.Array(item), next_cursor: Schema.NullOr(Schema.String), has_more: Schema.Boolean })

const reads = <T extends Tool.Any>(tool: T): T =>
  tool
    .annotate(Tool.Readonly, true)
    .annotate(Tool.Destructive, false)
    .annotate(Tool.Idempotent, true)
    .annotate(Tool.OpenWorld, false) as T

const writes = <T extends Tool.Any>(tool: T, calls: "courier" | "store"): T =>
  tool
    .annotate(Tool.Readonly, false)
    .annotate(Tool.Destructive, true)
    .annotate(Tool.Idempotent, true)
    .annotate(Tool.OpenWorld, calls === "courier") as T

// --- orders:read -------------------------------------------------------------------------------------------------

export const ListOrders = reads(
  Tool.make("list_orders", {
    description:
      "The store's orders, newest first, one page at a time (pass next_cursor back as cursor for the next page).",
    parameters: Schema.Struct({
      limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 200 }))),
      cursor: Schema.optionalKey(Schema.String),
      status: Schema.optionalKey(OrderStatus.OrderStatus),
      since: Schema.optionalKey(Schema.String.annotate({ description: "ISO 8601: orders created at or after" })),
      customer_phone: Schema.optionalKey(Schema.String),
      courier: Schema.optionalKey(Schema.String.annotate({ description: "Orders whose parcel this courier carries" })),
      shipment_status: Schema.optionalKey(
        Schema.String.annotate({ description: "Orders whose parcel is in this canonical status (delivered, …)" })
      )
    }),
    success: Page(OrderViews.OrderSummary),
    failure: ToolFailure.ToolFailure,
    dependencies: [StoreKey]
  }).annotate(Tool.Title, "List orders")
)

export const GetOrder = reads(
  Tool.make("get_order", {
    description: "One order in full: its customer, lines, amounts, status and shipment.",
    parameters: Schema.Struct({ id: Id("order") }),
    success: OrderViews.OrderDetail,
    failure: ToolFailure.ToolFailure,
    dependencies: [StoreKey]
  }).annotate(Tool.Title, "Get an order")
)

export const GetShipmentLabel = reads(
  Tool.make("get_shipment_label", {
    description: "The label of an order's parcel as its courier renders it: a PDF, base64-encoded.",
    parameters: Schema.Struct({ id: Id("order") }),
    success: ToolSchemas.Pdf,
    failure: ToolFailure.ToolFailure,
    dependencies: [StoreKey]
  }).annotate(Tool.Title, "Get an order's shipment label")
).annotate(Tool.OpenWorld, true)

export const OrderReads = Toolkit.make(ListOrders, GetOrder, GetShipmentLabel)

// --- orders:write ------------------------------------------------------------------------------------------------

const write = { idempotencyKey: ToolSchemas.IdempotencyKey }

export const ChangeOrderStatus = writes(
  Tool.make("change_order_status", {
    description:
      "Moves an order to another status (pending → confirmed → processing → shipped → delivered; cancelled from " +
      `the first three, which puts its stock back). ${ASK_FIRST}`,
    parameters: Schema.Struct({ id: Id("order"), status: OrderStatus.OrderStatus, ...write }),
    success: OrderViews.OrderDetail,
    failure: ToolFailure.ToolFailure,
    dependencies: [StoreKey]
  }).annotate(Tool.Title, "Change an order's status"),
  "store"
)

export const ShipOrder = writes(
  Tool.make("ship_order", {
    description:
      "Ships a confirmed or processing order through one of the store's courier accounts: the parcel is created " +
      `at the courier (a real shipment it charges for) and the order goes to shipped. ${ASK_FIRST}`,
    parameters: Schema.Struct({ id: Id("order"), ...Parcel.ShipBody.fields, ...write }),
    success: OrderViews.OrderDetail,
    failure: ToolFailure.ToolFailure,
    dependencies: [StoreKey]
  }).annotate(Tool.Title, "Ship an order"),
  "courier"
)

export const DispatchShipment = writes(
  Tool.make("dispatch_shipment", {
    description: `Hands a parcel shipped with dispatch false to its courier; the order goes to shipped. ${ASK_FIRST}`,
    parameters: Schema.Struct({ id: Id("order"), ...write }),
    success: OrderViews.OrderDetail,
    failure: ToolFailure.ToolFailure,
    dependencies: [StoreKey]
  }).annotate(Tool.Title, "Dispatch an order's parcel"),
  "courier"
)

export const CancelShipment = writes(
  Tool.make("cancel_shipment", {
    description:
      "Cancels an order's parcel where its courier still allows it; the order goes to cancelled and its stock " +
      `comes back. ${ASK_FIRST}`,
    parameters: Schema.Struct({ id: Id("order"), ...write }),
    success: OrderViews.OrderDetail,
    failure: ToolFailure.ToolFailure,
    dependencies: [StoreKey]
  }).annotate(Tool.Title, "Cancel an order's parcel"),
  "courier"
)

export const OrderWrites = Toolkit.make(ChangeOrderStatus, ShipOrder, DispatchShipment, CancelShipment)

// --- store:read (the change history) -----------------------------------------------------------------------------

export const ListChanges = reads(
  Tool.make("list_changes", {
    description:
      "The store's recorded configuration changes, newest first (settings, design, theme, categories, stock, promo " +
      "codes, pixels, shipping rates, landing page sections): what each changed, and whether it was undone.",
    parameters: Schema.Struct({
      entity: Schema.optionalKey(Schema.Literals(Change.ENTITY_NAMES)),
      limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
      cursor: Schema.optionalKey(Schema.String)
    }),
    success: Page(Change.ChangeListItem),
    failure: ToolFailure.ToolFailure,
    dependencies: [StoreKey]
  }).annotate(Tool.Title, "List changes")
)

export const GetChange = reads(
  Tool.make("get_change", {
    description: "One recorded change with the values it replaced (before) and wrote (after).",
    parameters: Schema.Struct({ id: Id("change") }),
    success: Change.ChangeDetail,
    failure: ToolFailure.ToolFailure,
    dependencies: [StoreKey]
  }).annotate(Tool.Title, "Get a change")
)

export const ChangeReads = Toolkit.make(ListChanges, GetChange)

// --- an entity's undo scope --------------------------------------------------------------------------------------

export const UndoChange = writes(
  Tool.make("undo_change", {
    description:
      "Undoes a recorded change: the values it replaced are written back (read the item again to see them). The " +
      `key needs the changed entity's write scope. ${ASK_FIRST}`,
    parameters: Schema.Struct({ id: Id("change"), ...write }),
    success: Change.Undone,
    failure: ToolFailure.ToolFailure,
    dependencies: [StoreKey]
  }).annotate(Tool.Title, "Undo a change"),
  "store"
)

export const ChangeUndo = Toolkit.make(UndoChange)

/**
 * The scopes that show each toolkit. The order reads take any key at the store API; here they need `orders:read`, so
 * that a key made without it gives an agent no order tools. The undo scopes are the recorded entities' (spec
 * store-api-config "Recorded entities"); the store API checks the changed entity's own.
 */
export const scopes = {
  orderReads: ["orders:read"],
  orderWrites: ["orders:write"],
  changeReads: ["store:read"],
  changeUndo: ["store:write", "products:write", "promos:write", "pixels:write", "shipping:write", "landing_pages:write"]
} as const satisfies Record<string, ReadonlyArray<string>>

const call = ToolFailure.call("store")

const idempotency = (key: string) => ({ "idempotency-key": key })

export const layerOrderReads = OrderReads.toLayer(
  Effect.gen(function* () {
    const currentSession = sessionOf(yield* Sessions)
    return OrderReads.of({
      list_orders: (query) =>
        Effect.flatMap(currentSession, ({ client }) => client.orders.listOrders({ query })).pipe(
          Effect.map((answer) => answer.data),
          call
        ),
      get_order: ({ id }) =>
        Effect.flatMap(currentSession, ({ client }) => client.orders.getOrder({ params: { id } })).pipe(
          Effect.map((answer) => answer.data),
          call
        ),
      get_shipment_label: ({ id }) =>
        Effect.flatMap(currentSession, ({ client }) => client.shipments.getShipmentLabel({ params: { id } })).pipe(
          Effect.map(ToolSchemas.pdfOf),
          call
        )
    })
  })
)

export const layerOrderWrites = OrderWrites.toLayer(
  Effect.gen(function* () {
    const currentSession = sessionOf(yield* Sessions)
    return OrderWrites.of({
      change_order_status: ({ id, status, idempotencyKey }) =>
        Effect.flatMap(currentSession, ({ client }) =>
          client.orders.updateOrderStatus({ params: { id }, payload: { status }, headers: idempotency(idempotencyKey) })
        ).pipe(
          Effect.map((answer) => answer.data),
          call
        ),
      ship_order: ({ id, idempotencyKey, ...payload }) =>
        Effect.flatMap(currentSession, ({ client }) =>
          client.shipments.shipOrder({ params: { id }, payload, headers: idempotency(idempotencyKey) })
        ).pipe(
          Effect.map((answer) => answer.data),
          call
        ),
      dispatch_shipment: ({ id, idempotencyKey }) =>
        Effect.flatMap(currentSession, ({ client }) =>
          client.shipments.dispatchShipment({ params: { id }, headers: idempotency(idempotencyKey) })
        ).pipe(
          Effect.map((answer) => answer.data),
          call
        ),
      cancel_shipment: ({ id, idempotencyKey }) =>
        Effect.flatMap(currentSession, ({ client }) =>
          client.shipments.cancelShipment({ params: { id }, headers: idempotency(idempotencyKey) })
        ).pipe(
          Effect.map((answer) => answer.data),
          call
        )
    })
  })
)

export const layerChangeReads = ChangeReads.toLayer(
  Effect.gen(function* () {
    const currentSession = sessionOf(yield* Sessions)
    return ChangeReads.of({
      list_changes: ({ limit, ...query }) =>
        Effect.flatMap(currentSession, ({ client }) =>
          client.changes.listChanges({ query: { ...query, ...(limit === undefined ? {} : { limit: String(limit) }) } })
        ).pipe(
          Effect.map((answer) => answer.data),
          call
        ),
      get_change: ({ id }) =>
        Effect.flatMap(currentSession, ({ client }) => client.changes.getChange({ params: { id } })).pipe(
          Effect.map((answer) => answer.data),
          call
        )
    })
  })
)

export const layerChangeUndo = ChangeUndo.toLayer(
  Effect.gen(function* () {
    const currentSession = sessionOf(yield* Sessions)
    return ChangeUndo.of({
      undo_change: ({ id, idempotencyKey }) =>
        Effect.flatMap(currentSession, ({ client }) =>
          client.changes.undoChange({ params: { id }, headers: idempotency(idempotencyKey) })
        ).pipe(
          Effect.map((answer) => answer.data),
          call
        )
    })
  })
)
