import { Effect } from "effect"

/**
 * Landing page sections (`@tawsil/catalogue`). Reserved; the tables follow.
 */
export default Effect.void
