/**
 * What following parcels shows, as effect `Metric`s in the default registry (the host exports them): the pushed
 * events not applied yet — the appliers' backlog and how late its oldest event is, and the events waiting for their
 * parcel. No label names a store, an account or a parcel.
 */
import { Effect, Metric } from "effect"
import type { PushBacklog } from "./TrackingStore.ts"

export const pushPending = Metric.gauge("tawsil_courier_push_pending", {
  description: "Pushed courier events acknowledged and not applied yet, never tried, on the whole database"
})

export const pushLag = Metric.gauge("tawsil_courier_push_lag_seconds", {
  description: "How long ago the oldest pushed event not tried yet was acknowledged, in seconds (0: none is waiting)"
})

export const pushWaiting = Metric.gauge("tawsil_courier_push_waiting", {
  description: "Pushed courier events tried and not applied: their parcel is not attached (yet), or being applied"
})

/** Shows the backlog as last read. */
export const recordPushBacklog = (backlog: PushBacklog) =>
  Effect.all(
    [
      Metric.update(pushPending, backlog.pending),
      Metric.update(pushLag, backlog.lagSeconds),
      Metric.update(pushWaiting, backlog.waiting)
    ],
    { discard: true }
  )

/** The families at zero, so they are on `/metrics` from the start. */
export const zero = Effect.all([Metric.value(pushPending), Metric.value(pushLag), Metric.value(pushWaiting)], {
  discard: true
})
