/**
 * The code of one of Algeria's 58 wilayas (provinces), as both APIs send it: an integer from 1 to 58.
 */
import { Schema } from "effect"
import { integer } from "./internal/integer.ts"

export const WilayaCode = integer({ minimum: 1, maximum: 58 }, "Expected a wilaya code, an integer from 1 to 58").pipe(
  Schema.brand("WilayaCode")
)
export type WilayaCode = typeof WilayaCode.Type
