/**
 * The instants of the catalogue on the wire, in Algiers time: `YYYY-MM-DD HH:MM:SS` for products and landing pages
 * (the form of every other store API record, orders and customers), ISO 8601 with `+01:00` for the store's
 * `created_at`. In code each is a `DateTime.Utc`; decoding reads the text back as Algiers time.
 */
import { AlgiersTime } from "@tawsil/domain"
import { DateTime, Effect, Option, Schema, SchemaIssue, SchemaTransformation } from "effect"

const invalid = (text: string, expected: string) => Effect.fail(new SchemaIssue.InvalidValue({ expected }, text))

/** `2026-11-21 12:30:00`, Algiers local time. */
export const SqlTimestamp = Schema.String.check(
  Schema.isPattern(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, { expected: "YYYY-MM-DD HH:MM:SS" })
).pipe(
  Schema.decodeTo(
    Schema.DateTimeUtc,
    SchemaTransformation.transformEffect({
      // Read in Algiers' own zone, the exact inverse of `formatSql`: Algiers has not always been on UTC+01:00.
      decode: (text) =>
        Option.match(
          DateTime.makeZoned(`${text.replace(" ", "T")}Z`, { timeZone: AlgiersTime.zone, adjustForTimeZone: true }),
          {
            onNone: () => invalid(text, "an Algiers time YYYY-MM-DD HH:MM:SS"),
            onSome: (zoned) => Effect.succeed(DateTime.toUtc(zoned))
          }
        ),
      encode: (dt) => Effect.succeed(AlgiersTime.formatSql(dt))
    })
  )
)

/** `2026-11-21T12:30:00+01:00`. */
export const IsoTimestamp = Schema.String.pipe(
  Schema.decodeTo(
    Schema.DateTimeUtc,
    SchemaTransformation.transformEffect({
      decode: (text) =>
        Option.match(DateTime.make(text), {
          onNone: () => invalid(text, "an ISO 8601 time"),
          onSome: (dt) => Effect.succeed(DateTime.toUtc(dt))
        }),
      encode: (dt) => Effect.succeed(AlgiersTime.formatIso(dt))
    })
  )
)
