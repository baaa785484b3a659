import { Effect } from "effect"

/**
 * Categories and stock (`@tawsil/catalogue`). Reserved; the tables follow.
 */
export default Effect.void
