import { StoreApi } from "@tawsil/api/store/Api"
import { reasons } from "@tawsil/api/store/cod/Api"
import { RequestBody } from "@tawsil/api/store/Endpoint"
import { CodLedger } from "@tawsil/shipments"
import { Effect, Stream } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { RequestId } from "../../Edge.ts"
import { answer, store } from "../Handler.ts"

/** Whether the caller asked for CSV (`Accept: text/csv`); JSON otherwise. */
const wantsCsv = (accept: string | undefined) =>
  accept?.split(",").some((part) => part.trim().toLowerCase().startsWith("text/csv")) === true

export const handlers = HttpApiBuilder.group(
  StoreApi,
  "cod",
  Effect.fnUntraced(function* (handlers) {
    const ledger = yield* CodLedger.CodLedger
    return handlers
      .handleRaw(
        "importCodStatement",
        Effect.fnUntraced(function* () {
          const body = yield* RequestBody
          return yield* answer(ledger.importStatement(yield* store, typeof body === "string" ? body : "", {}), reasons)
        })
      )
      .handle(
        "codReport",
        Effect.fnUntraced(function* ({ query }) {
          const request = yield* HttpServerRequest.HttpServerRequest
          const given = {
            from: query.from,
            to: query.to,
            courier: query.courier,
            staleAfterDays: query.stale_after_days
          }
          if (!wantsCsv(request.headers.accept)) return yield* answer(ledger.report(yield* store, given), reasons)
          const requestId = yield* RequestId
          const csv = yield* ledger
            .reportCsv(yield* store, given)
            .pipe(Effect.mapError((error) => reasons.answer(error.reason, requestId)))
          return HttpServerResponse.stream(Stream.encodeText(csv), {
            contentType: "text/csv; charset=utf-8",
            headers: { "content-disposition": 'attachment; filename="cod-report.csv"' }
          }) as never
        })
      )
  })
)
