/**
 * `npm run admin -- <command>`: the operator's CLI. Each command prints exactly one JSON object on stdout — the
 * result, or `{ "error": { "message" } }` with a non-zero exit (1: refused or failed, 2: a usage mistake, 78: invalid
 * configuration). Logs and help go to stderr (`--help` to stdout). The database is found from the same variables
 * as the server's (`DATABASE_URL`, else `DATA_DIR`); `AdminClient` says how it is reached while a server runs.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Plans } from "@tawsil/domain"
import { Cause, Console, Effect, Exit, Layer, Logger, Option, References } from "effect"
import { CliError, CliOutput, Command, Flag } from "effect/cli"
import * as AppConfig from "../AppConfig.ts"
import { run } from "./AdminClient.ts"
import type { AdminRequest } from "./AdminRequest.ts"

const EXIT_FAILED = 1
const EXIT_USAGE = 2
/** sysexits' EX_CONFIG, as the server uses. */
const EXIT_CONFIG = 78

const print = (value: unknown) => Console.log(JSON.stringify(value))

/** Runs an operation where the configuration says the database is, and prints its result. */
const perform = (request: AdminRequest) =>
  Effect.gen(function* () {
    const config = yield* AppConfig.load
    yield* print(yield* run(config, request))
  })

const storeId = Flag.Int("store").pipe(Flag.withDescription("The store's id"))

/** A limit: a whole number, -1 for unlimited, or `tier` to fall back to the tier's limit. */
const limit = (name: string) =>
  Flag.String(name).pipe(
    Flag.withDescription("A whole number, -1 for unlimited, or tier (back to the tier's limit)"),
    Flag.mapEffect((raw) =>
      raw === "tier"
        ? Effect.succeed(null)
        : /^-?[0-9]{1,9}$/.test(raw)
          ? Effect.succeed(Number(raw))
          : Effect.fail(
              new CliError.InvalidValue({
                option: name,
                value: raw,
                expected: "a whole number, -1 (unlimited) or tier",
                kind: "flag"
              })
            )
    ),
    Flag.optional
  )

const storeCreate = Command.make(
  "create",
  {
    name: Flag.String("name").pipe(Flag.withDescription("The store's name (its slug is derived from it)")),
    plan: Flag.Literals("plan", Plans.PLANS).pipe(Flag.withDescription("Default: enterprise"), Flag.optional),
    pilot: Flag.Boolean("pilot").pipe(
      Flag.withDescription("Whether the store's keys are pilot-enrolled (default) or not (--no-pilot)"),
      Flag.optional
    ),
    language: Flag.Literals("language", ["ar", "fr"]).pipe(Flag.withDescription("Default: ar"), Flag.optional)
  },
  (flags) =>
    perform({
      op: "store.create",
      input: {
        name: flags.name,
        ...Option.match(flags.plan, { onNone: () => ({}), onSome: (plan) => ({ plan }) }),
        ...Option.match(flags.pilot, { onNone: () => ({}), onSome: (pilot) => ({ pilot }) }),
        ...Option.match(flags.language, { onNone: () => ({}), onSome: (language) => ({ language }) })
      }
    })
).pipe(Command.withDescription("Create a store and its first platform key (its bearer token is shown once)"))

const storeSetPlan = Command.make("set-plan", { store: storeId, plan: Flag.Literals("plan", Plans.PLANS) }, (flags) =>
  perform({ op: "store.set-plan", storeId: flags.store, plan: flags.plan })
).pipe(Command.withDescription("Change a store's plan (the API serves enterprise stores)"))

const storeAddon = Command.make(
  "addon",
  {
    store: storeId,
    promoCodes: Flag.Literals("promo-codes", ["on", "off"]).pipe(
      Flag.withDescription("The Promo codes add-on: on (new stores start with it on) or off (promo writes answer 409)")
    )
  },
  (flags) => perform({ op: "store.addon", storeId: flags.store, promoCodes: flags.promoCodes === "on" })
).pipe(Command.withDescription("Turn a store's add-ons on or off"))

const keyCreate = Command.make(
  "create",
  {
    store: storeId,
    type: Flag.Literals("type", ["platform", "public"]),
    name: Flag.String("name").pipe(Flag.withDescription("Default: default"), Flag.optional)
  },
  (flags) =>
    perform({
      op: "key.create",
      storeId: flags.store,
      type: flags.type,
      ...Option.match(flags.name, { onNone: () => ({}), onSome: (name) => ({ name }) })
    })
).pipe(Command.withDescription("Mint an active key (public keys too); a store holds at most 3"))

const keyId = Flag.String("key").pipe(Flag.withDescription("The key's id (twpk_live_… or twpub_live_…)"))

/** `key activate|suspend|revoke --key <id>`: a key's status, effective on the next request of every server. */
const keyStatus = (
  name: "activate" | "suspend" | "revoke",
  status: "active" | "suspended" | "revoked",
  about: string
) =>
  Command.make(name, { key: keyId }, (flags) => perform({ op: "key.set-status", keyId: flags.key, status })).pipe(
    Command.withDescription(about)
  )

const keyPilot = Command.make(
  "pilot",
  {
    key: keyId,
    enrolled: Flag.Literals("enrolled", ["on", "off"]).pipe(
      Flag.withDescription("on: the key may call the API; off: its calls answer 403 (pilot mode)")
    )
  },
  (flags) => perform({ op: "key.set-pilot", keyId: flags.key, pilot: flags.enrolled === "on" })
).pipe(Command.withDescription("Enrol a key in the pilot, or take it out"))

const appTokenCreate = Command.make(
  "create",
  {
    store: storeId,
    scopes: Flag.String("scopes").pipe(Flag.withDescription("Comma-separated, such as orders:write,products:write"))
  },
  (flags) =>
    perform({
      op: "app-token.create",
      storeId: flags.store,
      scopes: flags.scopes
        .split(",")
        .map((scope) => scope.trim())
        .filter((scope) => scope !== "")
    })
).pipe(Command.withDescription("Mint an installed-app token with these scopes (shown once)"))

const quotaSet = Command.make(
  "set",
  { store: storeId, perMinute: limit("requests-per-minute"), perMonth: limit("requests-per-month") },
  Effect.fnUntraced(function* (flags) {
    if (Option.isNone(flags.perMinute) && Option.isNone(flags.perMonth)) {
      return yield* new CliError.UserError({ cause: "give --requests-per-minute, --requests-per-month or both" })
    }
    yield* perform({
      op: "quota.set",
      storeId: flags.store,
      input: {
        ...Option.match(flags.perMinute, { onNone: () => ({}), onSome: (value) => ({ requestsPerMinute: value }) }),
        ...Option.match(flags.perMonth, { onNone: () => ({}), onSome: (value) => ({ requestsPerMonth: value }) })
      }
    })
  })
).pipe(Command.withDescription("Override a store's request limits"))

const secretsReseal = Command.make("reseal", {}, () => perform({ op: "secrets.reseal" })).pipe(
  Command.withDescription(
    "Re-seal every stored secret under the current key (after TAWSIL_SECRET_KEY changed, the old key in TAWSIL_SECRET_KEY_PREVIOUS)"
  )
)

const secretsRotate = Command.make("rotate", {}, () => perform({ op: "secrets.rotate" })).pipe(
  Command.withDescription(
    "Rotate the data directory's key file: a new key, every stored secret re-sealed, the old key retired (safe to run again)"
  )
)

const admin = Command.make("admin").pipe(
  Command.withDescription("Tawsil's operator commands; each prints one JSON object"),
  Command.withSubcommands([
    Command.make("store").pipe(Command.withSubcommands([storeCreate, storeSetPlan, storeAddon])),
    Command.make("key").pipe(
      Command.withSubcommands([
        keyCreate,
        keyStatus("activate", "active", "Activate a key (a public key waiting for support, or a suspended key)"),
        keyStatus("suspend", "suspended", "Suspend a key: its calls answer 401 until it is activated again"),
        keyStatus("revoke", "revoked", "Revoke a key for good"),
        keyPilot
      ])
    ),
    Command.make("app-token").pipe(Command.withSubcommands([appTokenCreate])),
    Command.make("quota").pipe(Command.withSubcommands([quotaSet])),
    Command.make("secrets").pipe(Command.withSubcommands([secretsReseal, secretsRotate]))
  ])
)

// Requested help goes to stdout; help that comes with a mistake goes to stderr, and the mistake becomes the JSON.
const presenter = CliOutput.layerPresenter({
  present: (event) =>
    Effect.gen(function* () {
      const formatter = yield* CliOutput.Formatter
      if (event._tag === "Version") return yield* Console.log(formatter.formatVersion(event.name, event.version))
      const help = formatter.formatHelpDoc(event.helpDoc)
      yield* event._tag === "Help" && event.reason === "Requested" ? Console.log(help) : Console.error(help)
    })
})

const fail = (code: number, message: string) => Effect.as(print({ error: { message } }), code)

const usageMessage = (error: CliError.ShowHelp) =>
  error.errors.length > 0
    ? error.errors.map((issue) => issue.message).join("; ")
    : `choose a command: ${error.commandPath.join(" ")} <command> (see --help)`

/**
 * The CLI as a program: its exit code, the arguments read from `Stdio`, the JSON printed through `Console`. Tests run
 * it in process with their own arguments, environment and console (`layer` below, `Stdio` overridden).
 */
export const program = Command.run(admin, { version: "0.1.0", renderErrors: false }).pipe(
  Effect.as(0),
  Effect.catchTags({
    ShowHelp: (error) => fail(EXIT_USAGE, usageMessage(error)),
    AdminFailed: (error) => fail(EXIT_FAILED, error.message),
    InvalidConfig: (error) => fail(EXIT_CONFIG, `invalid configuration: ${error.message}`),
    ConfigError: (error) => fail(EXIT_CONFIG, `invalid configuration: ${error.message}`)
  }),
  Effect.catchIf(CliError.isCliError, (error) => fail(EXIT_USAGE, error.message)),
  Effect.catchCause((cause) => fail(EXIT_FAILED, `unexpected failure: ${Cause.squash(cause)}`))
)

/** What the program runs on: Node's services (the process's arguments), help on stdout or stderr, logs on stderr. */
export const layer = Layer.mergeAll(
  NodeServices.layer,
  presenter,
  CliOutput.layer(CliOutput.defaultFormatter({ colors: false })),
  Logger.layer([Logger.formatSimple.pipe(Logger.withConsoleError)]),
  Layer.succeed(References.MinimumLogLevel, "Warn")
)

if (import.meta.main) {
  NodeRuntime.runMain(Effect.provide(program, layer), {
    disableErrorReporting: true,
    teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) ? Number(exit.value) : EXIT_FAILED)
  })
}
