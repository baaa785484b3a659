/**
 * The domain's announcements, carried between the processes of one database by its notices (`Notifications` of
 * @tawsil/storage: `NOTIFY` / `LISTEN` on a server, in process on the embedded database): an admin CLI run, or
 * another instance, that changes a key, a plan or a limit empties every running server's access cache at once.
 */
import { AccessEvents } from "@tawsil/access"
import { Notifications } from "@tawsil/storage"
import { Effect, Layer } from "effect"

/** The notice channel of access changes. */
export const ACCESS_CHANNEL = "tawsil_access"

export const accessEvents: Layer.Layer<AccessEvents.AccessEvents, never, Notifications.Notifications> = Layer.effect(
  AccessEvents.AccessEvents,
  Effect.map(Notifications.Notifications, (notifications) =>
    AccessEvents.AccessEvents.of({
      announce: notifications.publish(ACCESS_CHANNEL),
      subscribe: (forget) => notifications.subscribe(ACCESS_CHANNEL, forget)
    })
  )
)
