import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/landing-pages/Api"
import { LandingPages } from "@tawsil/catalogue"
import { Ids } from "@tawsil/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store } from "../Handler.ts"

/** A path id as the package takes it, unchecked: one no row can have (`0`) is the package's not found, not a defect. */
const pageId = (id: number) => Ids.LandingPageId.make(id, { disableChecks: true })

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "landingPages",
  Effect.fnUntraced(function* (handlers) {
    const pages = yield* LandingPages.LandingPages
    return handlers
      .handle(
        "listLandingPages",
        Effect.fnUntraced(function* ({ query }) {
          return yield* answer(pages.list(yield* store, query), reasons)
        })
      )
      .handle(
        "getLandingPage",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(pages.get(yield* store, pageId(params.id)), reasons)
        })
      )
      .handleRaw(
        "createLandingPage",
        Effect.fnUntraced(function* () {
          return yield* answer(pages.create(yield* store, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updateLandingPage",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(pages.update(yield* store, pageId(params.id), yield* RequestBody), reasons)
        })
      )
      .handle(
        "publishLandingPage",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(pages.publish(yield* store, pageId(params.id)), reasons)
        })
      )
      .handle(
        "deleteLandingPage",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(pages.remove(yield* store, pageId(params.id)), reasons)
        })
      )
  })
)
