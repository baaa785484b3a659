/**
 * The confirmation workflow of pending orders (docs/confirmation.md): the store records each attempt to confirm an
 * order (a call's outcome), makes signed one-time links the customer answers on a page, and sets a timeout after
 * which an unanswered order is cancelled or flagged. Outcomes that end the confirmation move the order through the
 * order state machine (`Orders`: `confirmed`; `cancelled` for a customer's cancel, a fake or a duplicate), in the
 * same unit as the attempt, so the order's events (the webhooks' outbox) are told with it.
 *
 * A link's token is signed by `ConfirmationLink` under a key derived from the app's secret key (`Secrets`), which is
 * never in the database; the store keeps each link's row, and spends it once (`useLink`). The timeout's sweep takes
 * the due orders under row locks that concurrent sweeps skip, and records at most one `timed_out` per order: each
 * order is cancelled or flagged once, whatever number of instances sweep.
 */
import { randomBytes } from "node:crypto"
import { AlgiersTime, type Ids, StoreText } from "@tawsil/domain"
import { Secrets } from "@tawsil/secrets"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, DateTime, type Duration, Effect, Layer, Result, Schema, SchemaIssue } from "effect"
import * as ConfirmationError from "./ConfirmationError.ts"
import * as ConfirmationLink from "./ConfirmationLink.ts"
import { type AttemptRecord, ConfirmationStore } from "./ConfirmationStore.ts"
import * as Views from "./ConfirmationViews.ts"
import { parseInstant } from "./internal/instant.ts"
import type * as OrderError from "./OrderError.ts"
import { Orders } from "./Orders.ts"
import type * as OrderViews from "./OrderViews.ts"

/** The order as the customer's page shows it. */
export interface PageOrder {
  readonly order_number: string
  readonly lines: ReadonlyArray<{ readonly name: string; readonly quantity: number; readonly price: number }>
  readonly shipping_cost: number
  readonly discount: number
  readonly total: number
}

/** What a link's page shows: the order to answer, or why there is nothing to answer. */
export type LinkPage =
  | { readonly _tag: "Open"; readonly order: PageOrder }
  /** Answered now, through this request. */
  | { readonly _tag: "Answered"; readonly answer: "confirmed" | "customer_cancelled"; readonly order_number: string }
  /** Answered before: a link is used once. */
  | { readonly _tag: "Used"; readonly answer: "confirmed" | "customer_cancelled" | null }
  | { readonly _tag: "Expired" }
  /** The order left `pending` another way (the store confirmed or cancelled it). */
  | { readonly _tag: "Closed" }
  /** Not a link this app signed (tampered, truncated, another key), or its order is gone. Says nothing more. */
  | { readonly _tag: "Invalid" }

/** The customer's choice on the page. */
export type Choice = "confirm" | "cancel"

/** A link made; the app turns its token into a URL on its public listener. */
export interface LinkMade {
  readonly order_id: number
  readonly token: string
  readonly expires_at: string
}

export class Confirmation extends Context.Service<
  Confirmation,
  {
    /** The order detail with its confirmation (`GET /v1/orders/{id}`). */
    readonly detail: (
      storeId: Ids.StoreId,
      id: number
    ) => Effect.Effect<Views.OrderWithConfirmation, ConfirmationError.ConfirmationError>
    /** Records an attempt (`AttemptBody`, checked here) on a pending order, moving it when the outcome ends it. */
    readonly record: (
      storeId: Ids.StoreId,
      id: number,
      body: unknown
    ) => Effect.Effect<Views.OrderWithConfirmation, ConfirmationError.ConfirmationError>
    /** A signed one-time link for a pending order (`LinkBody`, checked here). */
    readonly link: (
      storeId: Ids.StoreId,
      id: number,
      body: unknown
    ) => Effect.Effect<LinkMade, ConfirmationError.ConfirmationError>
    readonly settings: (storeId: Ids.StoreId) => Effect.Effect<Views.Settings>
    readonly updateSettings: (
      storeId: Ids.StoreId,
      body: unknown
    ) => Effect.Effect<Views.Settings, ConfirmationError.ConfirmationError>
    /** What the page of a presented token shows (nothing is written). */
    readonly open: (token: string) => Effect.Effect<LinkPage>
    /** The customer's answer through a link: spends it, records the attempt and moves the order, in one unit. */
    readonly answer: (token: string, choice: Choice) => Effect.Effect<LinkPage>
    /** One round of the timeout: up to `limit` due orders cancelled or flagged; answers how many. */
    readonly sweep: (limit?: number) => Effect.Effect<number>
  }
>()("@tawsil/orders/Confirmation") {}

/** Orders a sweep takes in one unit. */
export const SWEEP_BATCH = 50

const invalid = (message: string) => ConfirmationError.fail(new ConfirmationError.InvalidConfirmation({ message }))

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** A body decoded by `schema`, or `InvalidConfirmation` naming each field at fault. */
const decodeBody = <S extends Schema.Decoder<unknown>>(schema: S, body: unknown, what: string) => {
  const decoded = Schema.decodeUnknownResult(schema)(body ?? {}, { errors: "all", onExcessProperty: "ignore" })
  if (Result.isSuccess(decoded)) return Effect.succeed(decoded.success as S["Type"])
  const fields = formatIssues(decoded.failure.issue).issues.map((issue) => {
    const path = (issue.path ?? []).map((segment) => String(segment)).join(".")
    return path === "" ? issue.message : `${path}: ${issue.message}`
  })
  return Effect.fail(invalid(`Invalid ${what}: ${fields.join("; ")}`))
}

const fromOrderError = (error: OrderError.OrderError) => ConfirmationError.fail(error.reason)

const sqlTime = (at: DateTime.Utc | null) => (at === null ? null : AlgiersTime.formatSql(at))

const notPending = (order: OrderViews.OrderDetail) =>
  ConfirmationError.fail(
    new ConfirmationError.NotAwaitingConfirmation({
      message: `Order ${order.id} is ${order.status}: only a pending order awaits confirmation`
    })
  )

/** The confirmation of an order from its attempts. */
export const viewOf = (attempts: ReadonlyArray<AttemptRecord>): Views.View => {
  const answers = attempts.filter((attempt) => attempt.source !== "timeout")
  const latest = attempts.at(-1)
  const timedOut = attempts.find((attempt) => attempt.outcome === "timed_out")
  return {
    state: latest?.outcome ?? null,
    attempts: answers.length,
    postponed_until: latest?.outcome === "postponed" ? sqlTime(latest.postponed_until) : null,
    timed_out_at: timedOut === undefined ? null : AlgiersTime.formatSql(timedOut.created_at),
    history: attempts.map((attempt) => ({
      outcome: attempt.outcome,
      source: attempt.source,
      note: attempt.note,
      postponed_until: sqlTime(attempt.postponed_until),
      created_at: AlgiersTime.formatSql(attempt.created_at)
    }))
  }
}

export const layer: Layer.Layer<Confirmation, never, ConfirmationStore | Orders | Secrets.Secrets> = Layer.effect(
  Confirmation,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* ConfirmationStore
    const orders = yield* Orders
    const secrets = yield* Secrets.Secrets

    const getOrder = (storeId: Ids.StoreId, id: number) => Effect.mapError(orders.get(storeId, id), fromOrderError)

    const detailOf = Effect.fnUntraced(function* (storeId: Ids.StoreId, id: number) {
      const order = yield* getOrder(storeId, id)
      const attempts = yield* store.attempts(storeId, order.id)
      return { ...order, confirmation: viewOf(attempts) } satisfies Views.OrderWithConfirmation
    })

    /** Moves a pending order as an ending outcome says; other outcomes leave it pending. */
    const follow = (storeId: Ids.StoreId, id: number, outcome: Views.Outcome) => {
      const to = Views.closing[outcome]
      if (to === undefined) return Effect.void
      const moved =
        to === "confirmed" ? orders.setStatus(storeId, id, { status: "confirmed" }) : orders.cancel(storeId, id)
      return Effect.asVoid(Effect.mapError(moved, fromOrderError))
    }

    /** The link a token names, if this app signed it and its row agrees; with the order it binds. */
    const linkOf = Effect.fnUntraced(function* (token: string) {
      const ring = yield* secrets.ring
      if (ring === undefined || token.length > 128) return undefined
      const claims = ConfirmationLink.read([ring.current, ...ring.previous], token)
      if (Result.isFailure(claims)) return undefined
      const link = yield* store.findLink(claims.success.linkId)
      if (link === undefined || link.store_id !== claims.success.storeId || link.order_id !== claims.success.orderId) {
        return undefined
      }
      return link
    })

    /** Where a link stands before an answer: the page to show instead, or the pending order to answer. */
    const standing = Effect.fnUntraced(function* (token: string) {
      const link = yield* linkOf(token)
      if (link === undefined) return { page: { _tag: "Invalid" } as LinkPage }
      if (link.used_at !== null) return { page: { _tag: "Used", answer: link.answer } as LinkPage }
      const now = yield* DateTime.now
      if (!DateTime.isLessThan(now, link.expires_at)) return { page: { _tag: "Expired" } as LinkPage }
      const order = yield* Effect.option(orders.get(link.store_id, link.order_id))
      if (order._tag === "None") return { page: { _tag: "Invalid" } as LinkPage }
      if (order.value.status !== "pending") return { page: { _tag: "Closed" } as LinkPage }
      return { link, order: order.value, now }
    })

    return Confirmation.of({
      detail: method("Confirmation.detail")(function* (storeId, id) {
        return yield* detailOf(storeId, id)
      }),

      record: method("Confirmation.record")(function* (storeId, id, body) {
        const sent = yield* decodeBody(Views.AttemptBody, body, "confirmation attempt")
        const note = sent.note === undefined || sent.note === null ? null : sent.note.trim()
        if (note !== null && (note.length > Views.NOTE_MAX || !StoreText.isStorable(note))) {
          return yield* invalid(`note: at most ${Views.NOTE_MAX} characters, without NUL or lone surrogates`)
        }
        const now = yield* DateTime.now
        let postponedUntil: DateTime.Utc | null = null
        if (sent.outcome === "postponed") {
          const until = sent.postponed_until === undefined ? undefined : parseInstant(sent.postponed_until)
          if (until === undefined || !DateTime.isGreaterThan(until, now)) {
            return yield* invalid("postponed_until: required with postponed, an ISO 8601 time in the future")
          }
          postponedUntil = until
        } else if (sent.postponed_until !== undefined) {
          return yield* invalid("postponed_until: only with the outcome postponed")
        }
        yield* store.transaction(
          Effect.gen(function* () {
            const order = yield* getOrder(storeId, id)
            if (order.status !== "pending") return yield* notPending(order)
            yield* store.insertAttempt(storeId, order.id, {
              outcome: sent.outcome,
              source: "api",
              note: note === "" ? null : note,
              postponed_until: postponedUntil,
              customer_phone: order.customer.phone,
              created_at: now
            })
            yield* follow(storeId, order.id, sent.outcome)
          })
        )
        return yield* detailOf(storeId, id)
      }),

      link: method("Confirmation.link")(function* (storeId, id, body) {
        const sent = yield* decodeBody(Views.LinkBody, body, "confirmation link")
        const seconds = sent.expires_in ?? Views.LINK_DEFAULT_SECONDS
        if (seconds < Views.LINK_MIN_SECONDS || seconds > Views.LINK_MAX_SECONDS) {
          return yield* invalid(
            `expires_in: seconds from ${Views.LINK_MIN_SECONDS} to ${Views.LINK_MAX_SECONDS}, ${Views.LINK_DEFAULT_SECONDS} when omitted`
          )
        }
        const order = yield* getOrder(storeId, id)
        if (order.status !== "pending") return yield* notPending(order)
        const ring = yield* secrets.ring
        if (ring === undefined) {
          return yield* ConfirmationError.fail(
            new ConfirmationError.LinksUnavailable({
              message: "No secret key is configured (TAWSIL_SECRET_KEY): confirmation links cannot be signed"
            })
          )
        }
        const now = yield* DateTime.now
        // Whole seconds: the token carries the expiry in seconds, and the row must say the same.
        const expiresAtSeconds = Math.floor(DateTime.toEpochMillis(now) / 1000) + seconds
        const expiresAt = DateTime.makeUnsafe(expiresAtSeconds * 1000)
        const linkId = yield* Effect.sync(() => randomBytes(12).toString("base64url"))
        yield* store.insertLink({
          id: linkId,
          store_id: storeId,
          order_id: order.id,
          expires_at: expiresAt,
          created_at: now,
          used_at: null,
          answer: null
        })
        const token = ConfirmationLink.sign(ring.current, {
          storeId,
          orderId: order.id,
          linkId,
          expiresAt: expiresAtSeconds
        })
        return { order_id: order.id, token, expires_at: AlgiersTime.formatSql(expiresAt) }
      }),

      settings: method("Confirmation.settings")(function* (storeId) {
        const saved = yield* store.settings(storeId)
        return {
          timeout_minutes: saved?.timeout_minutes ?? null,
          timeout_action: saved?.timeout_action ?? "flag",
          timeout_since: sqlTime(saved?.timeout_since ?? null)
        }
      }),

      updateSettings: method("Confirmation.updateSettings")(function* (storeId, body) {
        const sent = yield* decodeBody(Views.SettingsBody, body, "confirmation settings")
        const minutes = sent.timeout_minutes
        if (minutes !== undefined && minutes !== null && (minutes < 1 || minutes > Views.TIMEOUT_MAX_MINUTES)) {
          return yield* invalid(`timeout_minutes: from 1 to ${Views.TIMEOUT_MAX_MINUTES}, or null for no timeout`)
        }
        const now = yield* DateTime.now
        const saved = yield* store.settings(storeId)
        const timeout = minutes === undefined ? (saved?.timeout_minutes ?? null) : minutes
        const since = timeout === null ? null : saved?.timeout_minutes != null ? (saved.timeout_since ?? now) : now
        const next = {
          timeout_minutes: timeout,
          timeout_action: sent.timeout_action ?? saved?.timeout_action ?? "flag",
          timeout_since: since,
          updated_at: now
        }
        yield* store.saveSettings(storeId, next)
        return {
          timeout_minutes: next.timeout_minutes,
          timeout_action: next.timeout_action,
          timeout_since: sqlTime(next.timeout_since)
        }
      }),

      open: method("Confirmation.open")(function* (token) {
        const found = yield* standing(token)
        if ("page" in found) return found.page
        const { order } = found
        const names = yield* store.productNames(
          found.link.store_id,
          order.items.map((item) => item.product_id)
        )
        return {
          _tag: "Open",
          order: {
            order_number: order.order_number,
            lines: order.items.map((item) => ({
              name: names.get(item.product_id) ?? `#${item.product_id}`,
              quantity: item.quantity,
              price: item.price
            })),
            shipping_cost: order.amounts.shipping_cost,
            discount: order.amounts.discount,
            total: order.amounts.total
          }
        } satisfies LinkPage
      }),

      answer: method("Confirmation.answer")(function* (token, choice) {
        const found = yield* standing(token)
        if ("page" in found) return found.page
        const { link, order, now } = found
        const outcome = choice === "confirm" ? "confirmed" : "customer_cancelled"
        const answered = store.transaction(
          Effect.gen(function* () {
            if (!(yield* store.useLink(link.id, outcome, now))) {
              const again = yield* store.findLink(link.id)
              return { _tag: "Used", answer: again?.answer ?? null } satisfies LinkPage
            }
            yield* store.insertAttempt(link.store_id, link.order_id, {
              outcome,
              source: "link",
              note: null,
              postponed_until: null,
              customer_phone: order.customer.phone,
              created_at: now
            })
            yield* follow(link.store_id, link.order_id, outcome)
            return { _tag: "Answered", answer: outcome, order_number: order.order_number } satisfies LinkPage
          })
        )
        // The order moved meanwhile (the store confirmed or cancelled it): nothing was written, the link is unspent.
        return yield* answered.pipe(Effect.catch(() => Effect.succeed({ _tag: "Closed" } satisfies LinkPage)))
      }),

      sweep: method("Confirmation.sweep")(function* (limit = SWEEP_BATCH) {
        const now = yield* DateTime.now
        return yield* store
          .transaction(
            Effect.gen(function* () {
              const due = yield* store.due(now, limit)
              let done = 0
              for (const { storeId, orderId, action } of due) {
                const order = yield* orders.get(storeId, orderId)
                const recorded = yield* store.insertTimeout(storeId, orderId, {
                  outcome: "timed_out",
                  source: "timeout",
                  note: action === "cancel" ? "cancelled by the store's timeout" : "flagged by the store's timeout",
                  postponed_until: null,
                  customer_phone: order.customer.phone,
                  created_at: now
                })
                if (!recorded) continue
                if (action === "cancel") yield* orders.cancel(storeId, orderId)
                done++
              }
              return done
            })
          )
          .pipe(Effect.orDie)
      })
    })
  })
)

export interface SweepOptions {
  /** How long the sweeper waits after a round that found fewer than a batch. */
  readonly every: Duration.Input
}

/**
 * The service and its timeout sweeper, in the layer's scope: a round at start, then one every `options.every`, at
 * once again after a full batch; a failing round is logged, not fatal.
 */
export const layerSweeping = (options: SweepOptions) =>
  Layer.effect(
    Confirmation,
    Effect.gen(function* () {
      const confirmation = yield* Confirmation
      yield* Effect.gen(function* () {
        for (;;) {
          const done = yield* confirmation
            .sweep()
            .pipe(
              Effect.catchCause((cause) => Effect.as(Effect.logError("confirmation timeout: sweep failed", cause), 0))
            )
          if (done < SWEEP_BATCH) yield* Effect.sleep(options.every)
        }
      }).pipe(Effect.forkScoped)
      return confirmation
    })
  ).pipe(Layer.provideMerge(layer))
