import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/themes/Api"
import { Themes } from "@tawsil/storefront"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "themes",
  Effect.fnUntraced(function* (handlers) {
    const themes = yield* Themes.Themes
    return handlers
      .handle(
        "listThemes",
        Effect.fnUntraced(function* () {
          return yield* answer(themes.list(yield* store), reasons)
        })
      )
      .handleRaw(
        "switchTheme",
        Effect.fnUntraced(function* () {
          return yield* answer(themes.switchTheme(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "switchFastCheckoutTheme",
        Effect.fnUntraced(function* () {
          return yield* answer(themes.switchFastCheckoutTheme(yield* writer, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "switchVariantStyle",
        Effect.fnUntraced(function* () {
          return yield* answer(themes.switchVariantStyle(yield* writer, yield* RequestBody), reasons)
        })
      )
  })
)
