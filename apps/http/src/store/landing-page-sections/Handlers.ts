import { StoreApi } from "@tawsil/api/store/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { reasons } from "@tawsil/api/store/landing-page-sections/Api"
import { PageSections } from "@tawsil/catalogue"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { answer, store, writer } from "../Handler.ts"

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "landingPageSections",
  Effect.fnUntraced(function* (handlers) {
    const sections = yield* PageSections.PageSections
    return handlers
      .handle(
        "listLandingPageSections",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(sections.list(yield* store, params.id), reasons)
        })
      )
      .handle(
        "getLandingPageSection",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(sections.get(yield* store, params.id, params.section_id), reasons)
        })
      )
      .handleRaw(
        "createLandingPageSection",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(sections.create(yield* writer, params.id, yield* RequestBody), reasons)
        })
      )
      .handleRaw(
        "updateLandingPageSection",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(
            sections.update(yield* writer, params.id, params.section_id, yield* RequestBody),
            reasons
          )
        })
      )
      .handle(
        "deleteLandingPageSection",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(sections.remove(yield* writer, params.id, params.section_id), reasons)
        })
      )
      .handleRaw(
        "reorderLandingPageSections",
        Effect.fnUntraced(function* ({ params }) {
          return yield* answer(sections.reorder(yield* writer, params.id, yield* RequestBody), reasons)
        })
      )
  })
)
