/**
 * `npm run couriers:check -- --courier <key> [options]`: an operator's live check of one courier adapter against
 * its courier, with a merchant's credentials from the environment; reads only (CourierCheck.ts). docs/adapters.md
 * "Checking an adapter against its courier" is the manual.
 *
 * Exit status: 0 when every read answered and was read and every status is known; 1 when something is to look into
 * (the report says what); 2 for a usage mistake (an unknown courier, a missing credential, a bad option); 78 for the
 * app's configuration (the same variables as `npm start`: TAWSIL_COURIER_ORIGINS, COURIER_ADAPTERS, REDIS_URL…).
 */
import { mkdirSync, writeFileSync } from "node:fs"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Egress } from "@tawsil/egress"
import { Communes } from "@tawsil/reference"
import { Catalogue, Discovery, HttpTransport } from "@tawsil/shipping"
import { Effect, Layer, References } from "effect"
import * as App from "../App.ts"
import * as AppConfig from "../AppConfig.ts"
import * as CourierCheck from "../CourierCheck.ts"
import * as EgressGuard from "../EgressGuard.ts"

const USAGE = `usage: npm run couriers:check -- --courier <key> [--wilaya <code>]… [--from-wilaya <code>]
         [--track <number>[,<number>…]] [--base-url https://<tenant>.<domain>] [--timeout-ms <ms>] [--record <dir>]

Credentials come from the environment, one variable a field: COURIER_ and the field's name in capitals with
underscores (apiToken → COURIER_API_TOKEN). Only reads are made: the credential check, the communes, desks and fees
of each --wilaya (16 unless named), and the tracking of the numbers given. --record <dir> writes every answer,
scrubbed of the credentials and of customers' data, as fixtures the adapters' tests replay.`

const EXIT_USAGE = 2
const EXIT_CONFIG = 78

const say = (stream: NodeJS.WriteStream, text: string) => Effect.sync(() => stream.write(text))
const usageError = (line: string) => Effect.as(say(process.stderr, `couriers:check: ${line}\n\n${USAGE}\n`), EXIT_USAGE)

const wilayaArg = (raw: string) => {
  const code = Number(raw)
  return Number.isInteger(code) && code >= 1 && code <= 58 ? code : undefined
}

const slug = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/[^\w]+/g, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase()
    .slice(0, 60)

const main = Effect.gen(function* () {
  const parsed = yield* Effect.try({
    try: () =>
      parseArgs({
        options: {
          courier: { type: "string" },
          wilaya: { type: "string", multiple: true },
          "from-wilaya": { type: "string" },
          track: { type: "string", multiple: true },
          "base-url": { type: "string" },
          "timeout-ms": { type: "string" },
          record: { type: "string" },
          help: { type: "boolean" }
        },
        strict: true
      }).values,
    catch: (error) => (error as Error).message
  }).pipe(Effect.result)
  if (parsed._tag === "Failure") return yield* usageError(parsed.failure)
  const args = parsed.success
  if (args.help) return yield* Effect.as(say(process.stdout, `${USAGE}\n`), 0)
  if (args.courier === undefined) return yield* usageError("--courier is required")
  const wilayas = (args.wilaya ?? ["16"]).map(wilayaArg)
  if (wilayas.some((code) => code === undefined)) return yield* usageError("--wilaya takes a wilaya code, 1 to 58")
  const fromWilaya = args["from-wilaya"] === undefined ? undefined : wilayaArg(args["from-wilaya"])
  if (args["from-wilaya"] !== undefined && fromWilaya === undefined) {
    return yield* usageError("--from-wilaya takes a wilaya code, 1 to 58")
  }
  const timeoutMs = args["timeout-ms"] === undefined ? undefined : Number(args["timeout-ms"])
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs >= 1000 && timeoutMs <= 30_000)) {
    return yield* usageError("--timeout-ms takes milliseconds from 1000 to 30000")
  }
  const trackingNumbers = (args.track ?? []).flatMap((list) =>
    list
      .split(",")
      .map((number) => number.trim())
      .filter((number) => number !== "")
  )

  const config = yield* AppConfig.load
  // Before any courier plugin is imported: an adapter holding a merchant's credentials reaches nothing but its courier.
  yield* Effect.sync(() => EgressGuard.install(config))
  const adapters = yield* Discovery.discover(import.meta.url, config.courierAdapters)
  const catalogue = yield* Effect.try({
    try: () => Catalogue.make(adapters),
    catch: (error) => error as Error
  })
  const resolved = catalogue.resolve(args.courier)
  if (resolved === undefined) {
    return yield* usageError(
      `no installed adapter serves ${JSON.stringify(args.courier)}; couriers: ${catalogue.entries.map((entry) => entry.key).join(", ")}`
    )
  }
  const fields = resolved.adapter.requiredCredentials
  const missing = fields.map(CourierCheck.credentialVariable).filter((name) => (process.env[name] ?? "") === "")
  if (missing.length > 0) {
    return yield* usageError(`${resolved.manifest.name} needs its credentials in ${missing.join(", ")}`)
  }
  const credentials = Object.fromEntries(
    fields.map((field) => [field, process.env[CourierCheck.credentialVariable(field)]!])
  )

  // The app's transport and pacing: with REDIS_URL the check is paced together with the running app's calls.
  const { pacer } = App.limitLayers(config)
  const transport = HttpTransport.layer({ overrides: config.courierOrigins }).pipe(
    Layer.provide([Egress.Resolver.layer, pacer])
  )
  const report = yield* CourierCheck.run(catalogue, {
    courier: resolved.manifest.key,
    credentials,
    baseUrl: args["base-url"],
    fromWilaya,
    wilayas: wilayas as ReadonlyArray<number>,
    trackingNumbers,
    timeoutMs
  }).pipe(Effect.provide([transport, Communes.layerFileOptional(config.communesFile)]))
  yield* say(process.stdout, CourierCheck.render(report, resolved.manifest.name))

  if (args.record !== undefined) {
    const dir = Path.resolve(args.record, report.courier)
    yield* Effect.sync(() => {
      mkdirSync(dir, { recursive: true })
      report.exchanges.forEach((exchange, index) => {
        const file = `${String(index + 1).padStart(2, "0")}-${slug(exchange.step) || "request"}.json`
        writeFileSync(Path.join(dir, file), `${JSON.stringify(exchange, null, 2)}\n`)
      })
    })
    yield* say(process.stdout, `recorded ${report.exchanges.length} answers in ${dir}\n`)
  }
  return CourierCheck.isClean(report) ? 0 : 1
}).pipe(
  Effect.catchTags({
    InvalidConfig: (error) => Effect.as(say(process.stderr, `invalid configuration: ${error.message}\n`), EXIT_CONFIG),
    ConfigError: (error) => Effect.as(say(process.stderr, `invalid configuration: ${error.message}\n`), EXIT_CONFIG),
    UnknownCourier: (error) => usageError(error.message)
  }),
  // The report is the output: the core's own warnings (an unmapped status, already in the report) stay quiet.
  Effect.provideService(References.MinimumLogLevel, "Error")
)

NodeRuntime.runMain(main, {
  teardown: (exit, onExit) => onExit(exit._tag === "Success" ? Number(exit.value) : 1)
})
