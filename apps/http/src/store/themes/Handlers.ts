import { Themes } from "@tawsil/storefront"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { StoreApi } from "../Api.ts"
import { RequestBody } from "../Endpoint.ts"
import { answer, store, writer } from "../Handler.ts"
import { reasons } from "./Api.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "themes",
  Effect.fn(function* (handlers) {
    const themes = yield* Themes.Themes
    return handlers
      .handle(
        "listThemes",
        Effect.fn(function* () {
          return yield* answer(themes.list(yield* store), reasons)
        })
      )
      .handleRaw(
        "switchTheme",
        Effect.fn(function* () {
          return yield* answer(themes.switchTheme(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "switchFastCheckoutTheme",
        Effect.fn(function* () {
          return yield* answer(themes.switchFastCheckoutTheme(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "switchVariantStyle",
        Effect.fn(function* () {
          return yield* answer(themes.switchVariantStyle(yield* writer, yield* RequestBody), reasons)
        })
      )
  })
)
