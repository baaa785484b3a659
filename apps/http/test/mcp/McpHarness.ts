/**
 * An agent host's view of the MCP server, for the end-to-end tests of both transports: the whole app in this process
 * (`AppInProcess`) on a data directory holding a store (its platform key, with every scope, and an installed-app token
 * with `orders:read` only, made by the admin CLI), an order and a sandbox courier account; the NOEST loopback fake for
 * calls with canary credentials; and, with the official MCP TypeScript SDK as the client, the session an agent runs
 * (`agentSession`). Every answer the agent reads is kept, for the canary checks.
 */
import { assert } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect } from "effect"
import * as Noest from "../../../../adapters/noest/test/fake/NoestFake.ts"
import { runAdminInProcess } from "../AdminInProcess.ts"
import { type AppInProcess, startApp } from "../couriers/AppInProcess.ts"

/** Canary credentials: they reach the NOEST fake and nothing else (no log line, no answer). */
export const CANARY = { apiToken: "canary-mcp-noest-token-7f3a91c2d4", guid: "CANARY-MCP-GUID-5E8B" } as const
/** Refused by the fake (another account's token): the refusal must not echo it either. */
export const CANARY_REFUSED = { apiToken: "canary-mcp-refused-token-0c6d2b84e1", guid: CANARY.guid } as const
export const canaries = [CANARY.apiToken, CANARY.guid, CANARY_REFUSED.apiToken]

export interface Deployment {
  readonly app: AppInProcess
  readonly dataDir: string
  /** The platform key's bearer token (every scope). */
  readonly platformToken: string
  /** An installed-app token with `orders:read` only. */
  readonly ordersReadToken: string
  readonly orderId: number
  readonly accountId: number
  readonly noest: Noest.NoestFake["Service"]
}

const admin = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  Effect.flatMap(Effect.orDie(runAdminInProcess(env, ...args)), (run) =>
    run.code === 0 ? Effect.succeed(run.json) : Effect.die(new Error(`admin ${args.join(" ")}: ${run.stdout}`))
  )

/** A store API call of the test's own (the setup), answered as JSON. */
export const storeCall = (app: AppInProcess, token: string, method: string, path: string, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${app.storeUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined
          ? {}
          : { "content-type": "application/json", "idempotency-key": `setup${path.replaceAll("/", "-")}` })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON bodies field by field
    return { status: response.status, json: (await response.json()) as any }
  })

export const deploy = Effect.gen(function* () {
  const dataDir = yield* TestDatabase.migratedDataDir
  const env = { DATA_DIR: dataDir }
  const created = yield* admin(env, "store", "create", "--name", "MCP shop")
  const platformToken = created.platform_key.bearer_token as string
  const appToken = yield* admin(env, "app-token", "create", "--store", "1", "--scopes", "orders:read")
  const noest = yield* Noest.make({ accounts: [[CANARY.apiToken, CANARY.guid]] })
  const app = yield* startApp(
    {
      ...env,
      TAWSIL_COURIER_ORIGINS: `https://app.noest-dz.com=${noest.origin}`,
      SHIPPING_RATE_LIMIT_PER_MINUTE: "100000",
      LOG_LEVEL: "trace"
    },
    { within: 90_000 }
  )
  const product = yield* storeCall(app, platformToken, "POST", "/v1/products", {
    name: "Robe kabyle",
    price: 4500,
    stock: 10
  })
  assert.strictEqual(product.status, 200, JSON.stringify(product.json))
  const order = yield* storeCall(app, platformToken, "POST", "/v1/orders", {
    customer: { name: "Amina Benali", phone: "0555 12 34 56", wilaya_id: 16, commune: "Bab Ezzouar" },
    items: [{ product_id: product.json.data.id, quantity: 1 }],
    shipping_cost: 400
  })
  assert.strictEqual(order.status, 200, JSON.stringify(order.json))
  const account = yield* storeCall(app, platformToken, "POST", "/v1/shipping/accounts", {
    courier: "sandbox",
    label: "Sandbox"
  })
  assert.strictEqual(account.status, 200, JSON.stringify(account.json))
  return {
    app,
    dataDir,
    platformToken,
    ordersReadToken: appToken.token as string,
    orderId: order.json.data.id as number,
    accountId: account.json.data.id as number,
    noest
  } satisfies Deployment
})

/** The SDK's client, connected over `transport`; closed with the scope. */
export const connect = (transport: Transport) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "tawsil-test-agent", version: "1.0.0" })
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** What a tool answered: its structured content, or its error text. */
export interface ToolAnswer {
  readonly isError: boolean
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON field by field
  readonly structured: any
}

/** Every text the agent read, for the canary checks. */
export const transcript: Array<string> = []

export const callTool = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(async (): Promise<ToolAnswer> => {
    const result = await client.callTool({ name, arguments: args })
    const text = (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? "").join("\n")
    transcript.push(JSON.stringify(result))
    return { isError: result.isError === true, text, structured: result.structuredContent }
  })

export const toolNames = (client: Client) =>
  Effect.promise(async () => {
    const listed = await client.listTools()
    transcript.push(JSON.stringify(listed))
    return listed.tools.map((tool) => tool.name).sort()
  })

export const SHIPPING_TOOLS = [
  "cancel_parcel",
  "compare_rates",
  "create_parcel",
  "get_label",
  "list_couriers",
  "list_stop_desks",
  "resolve_commune",
  "track_parcels"
]
export const ORDER_READ_TOOLS = ["get_order", "get_shipment_label", "list_orders"]
export const STORE_TOOLS = [
  ...ORDER_READ_TOOLS,
  "cancel_shipment",
  "change_order_status",
  "dispatch_shipment",
  "get_change",
  "list_changes",
  "ship_order",
  "undo_change"
]

const parcel = (reference: string) => ({
  reference,
  recipient: { fullName: "Amina Benali", phone: "0555 12 34 56", wilayaCode: 16, communeName: "Bab Ezzouar" },
  deliveryType: "home",
  productList: "1x robe kabyle",
  codAmount: 4500
})

/**
 * The session an agent runs with a key holding every scope: it lists the tools (each destructive one saying to ask the
 * user first), quotes, creates a sandbox parcel without an idempotency key (refused, with the reason) and with one
 * (created; the same call again answers the same parcel), tracks and cancels it, calls a real platform with canary
 * credentials, lists and reads the store's orders, confirms, ships, labels and cancels the order's parcel, and reads
 * the change history. `tag` keeps two sessions' keys apart.
 */
export const agentSession = (client: Client, deployment: Deployment, tag: string) =>
  Effect.gen(function* () {
    const listed = yield* Effect.promise(() => client.listTools())
    assert.deepStrictEqual(listed.tools.map((tool) => tool.name).sort(), [...SHIPPING_TOOLS, ...STORE_TOOLS].sort())
    for (const tool of listed.tools) {
      const destructive = tool.annotations?.destructiveHint === true
      assert.strictEqual(destructive, /ask the user first/i.test(tool.description ?? ""), tool.name)
      assert.strictEqual(tool.annotations?.readOnlyHint, !destructive, tool.name)
    }
    assert.sameMembers(
      listed.tools.filter((tool) => tool.annotations?.destructiveHint === true).map((tool) => tool.name),
      [
        "create_parcel",
        "cancel_parcel",
        "change_order_status",
        "ship_order",
        "dispatch_shipment",
        "cancel_shipment",
        "undo_change"
      ]
    )
    const create = listed.tools.find((tool) => tool.name === "create_parcel")!
    assert.include(create.inputSchema.required ?? [], "idempotencyKey")

    // Quote.
    const quote = yield* callTool(client, "compare_rates", {
      couriers: [{ courier: "sandbox" }],
      query: { toWilaya: 31, deliveryType: "home", codAmount: 8000 }
    })
    assert.isFalse(quote.isError, quote.text)
    assert.strictEqual(quote.structured.quotes[0].courier, "sandbox")
    assert.isAbove(quote.structured.quotes[0].rates.total, 0)

    // Create: without a key, the documented refusal; with one, created once.
    const refused = yield* callTool(client, "create_parcel", { courier: "sandbox", order: parcel(`${tag}-1`) })
    assert.isTrue(refused.isError)
    assert.include(refused.text, "idempotencyKey is required")
    const args = { courier: "sandbox", order: parcel(`${tag}-1`), idempotencyKey: `${tag}-parcel-1` }
    const created = yield* callTool(client, "create_parcel", args)
    assert.isFalse(created.isError, created.text)
    assert.strictEqual(created.structured.status, "created")
    const trackingNumber = created.structured.trackingNumber as string
    // The same call again is answered from the idempotency record (a sandbox number has random characters: a second
    // parcel would have another), and the key cannot be reused for another parcel.
    const replayed = yield* callTool(client, "create_parcel", args)
    assert.isFalse(replayed.isError, replayed.text)
    assert.deepStrictEqual(replayed.structured, created.structured)
    const reused = yield* callTool(client, "create_parcel", { ...args, order: parcel(`${tag}-2`) })
    assert.isTrue(reused.isError)
    assert.strictEqual(JSON.parse(reused.text).code, "idempotency_key_reuse")

    // Track and cancel it.
    const tracked = yield* callTool(client, "track_parcels", { courier: "sandbox", trackingNumbers: [trackingNumber] })
    assert.isFalse(tracked.isError, tracked.text)
    assert.strictEqual(tracked.structured.results[0].trackingNumber, trackingNumber)
    assert.strictEqual(tracked.structured.results[0].status, "created")
    const cancelled = yield* callTool(client, "cancel_parcel", {
      courier: "sandbox",
      trackingNumber,
      idempotencyKey: `${tag}-cancel-1`
    })
    assert.isFalse(cancelled.isError, cancelled.text)
    assert.deepStrictEqual(cancelled.structured, { trackingNumber, status: "cancelled" })

    // A real platform's fake, with canary credentials: accepted, and refused.
    const desks = yield* callTool(client, "list_stop_desks", { courier: "noest", credentials: CANARY, wilayaCode: 16 })
    assert.isFalse(desks.isError, desks.text)
    assert.isAbove(desks.structured.desks.length, 0)
    const rejected = yield* callTool(client, "list_stop_desks", {
      courier: "noest",
      credentials: CANARY_REFUSED,
      wilayaCode: 16
    })
    assert.isTrue(rejected.isError)
    assert.strictEqual(JSON.parse(rejected.text).code, "credentials_rejected")

    // Bad arguments: a tool error that says what is wrong, and the session goes on.
    const bad = yield* callTool(client, "track_parcels", { courier: "sandbox", trackingNumbers: "SBX1" })
    assert.isTrue(bad.isError)
    assert.include(bad.text, "trackingNumbers")
    const badNested = yield* callTool(client, "compare_rates", {
      couriers: [{ courier: "sandbox", credentials: { k: 1 } }],
      query: { toWilaya: 99, deliveryType: "plane" }
    })
    assert.isTrue(badNested.isError)
    assert.include(badNested.text, "toWilaya")

    // The store: orders.
    const orders = yield* callTool(client, "list_orders", { limit: 10 })
    assert.isFalse(orders.isError, orders.text)
    assert.deepStrictEqual(
      orders.structured.items.map((order: { id: number }) => order.id),
      [deployment.orderId]
    )
    const order = yield* callTool(client, "get_order", { id: deployment.orderId })
    assert.isFalse(order.isError, order.text)
    assert.strictEqual(order.structured.status, "pending")
    const missing = yield* callTool(client, "get_order", { id: 999_999 })
    assert.isTrue(missing.isError)
    assert.strictEqual(JSON.parse(missing.text).code, "not_found")
    return { trackingNumber }
  })

/** The order's shipment calls, through the store tools (once per deployment: they move the order on). */
export const shipmentSession = (client: Client, deployment: Deployment) =>
  Effect.gen(function* () {
    const confirmed = yield* callTool(client, "change_order_status", {
      id: deployment.orderId,
      status: "confirmed",
      idempotencyKey: "confirm-1"
    })
    assert.isFalse(confirmed.isError, confirmed.text)
    assert.strictEqual(confirmed.structured.status, "confirmed")
    const shipped = yield* callTool(client, "ship_order", {
      id: deployment.orderId,
      account_id: deployment.accountId,
      idempotencyKey: "ship-1"
    })
    assert.isFalse(shipped.isError, shipped.text)
    assert.strictEqual(shipped.structured.status, "shipped")
    // The sandbox creates and dispatches at once: the store API's refusal, as a tool error.
    const dispatched = yield* callTool(client, "dispatch_shipment", { id: deployment.orderId, idempotencyKey: "go-1" })
    assert.isTrue(dispatched.isError)
    assert.strictEqual(JSON.parse(dispatched.text).code, "already_dispatched")
    assert.strictEqual(shipped.structured.shipment.courier, "sandbox")
    const label = yield* callTool(client, "get_shipment_label", { id: deployment.orderId })
    assert.isFalse(label.isError, label.text)
    assert.strictEqual(label.structured.contentType, "application/pdf")
    assert.strictEqual(Buffer.from(label.structured.base64, "base64").subarray(0, 5).toString("latin1"), "%PDF-")
    const cancelled = yield* callTool(client, "cancel_shipment", { id: deployment.orderId, idempotencyKey: "cancel-1" })
    assert.isFalse(cancelled.isError, cancelled.text)
    assert.strictEqual(cancelled.structured.status, "cancelled")
    const changes = yield* callTool(client, "list_changes", {})
    assert.isFalse(changes.isError, changes.text)
    assert.isArray(changes.structured.items)
    const undo = yield* callTool(client, "undo_change", { id: 424_242, idempotencyKey: "undo-1" })
    assert.isTrue(undo.isError)
    assert.strictEqual(JSON.parse(undo.text).code, "not_found")
  })

/** No canary in any log line the app wrote, any answer the agent read, or any `extra` text (a server's stderr). */
export const assertNoCanary = (deployment: Deployment, ...extra: ReadonlyArray<string>) => {
  const texts = [deployment.app.stdout(), deployment.app.stderr(), ...transcript, ...extra]
  for (const canary of canaries) {
    for (const text of texts) assert.notInclude(text, canary)
  }
}
