/**
 * The shipping door as plain code: what a server decides about a request from its client's address alone, before
 * it reads the request — refuse it for the client's used-up window, or a parcel create because creates are at
 * capacity — with no effect and no fiber, where the window counts in this process (`ClientWindow.countNow`). A
 * flood of refusals then costs the server little (issue 22, decision 0025). Where the window counts elsewhere (Redis),
 * the gateway's `atDoor` effect decides the same.
 */
import type { CapacityGuard } from "./CapacityGuard.ts"
import type * as ClientWindow from "./ClientWindow.ts"

/** What the door does with a request: refuse it for its client's used-up window, or as overloaded; undefined lets it through. */
export type Verdict = ClientWindow.WindowUsed | "overloaded" | undefined

export interface Door {
  /**
   * Counts one request of `client` in its window and answers the used-up window when it is refused; else, for a
   * parcel create (`create`), `"overloaded"` when the capacity guard would turn it away (counted then); else
   * undefined.
   */
  readonly decide: (client: string, create: boolean) => Verdict
}

/** The door over a window counted in this process and the capacity guard of creates. */
export const make = (
  countNow: (client: string) => ClientWindow.WindowUsed | undefined,
  capacity: CapacityGuard
): Door => ({
  decide: (client, create) => countNow(client) ?? (create && capacity.full() ? "overloaded" : undefined)
})
