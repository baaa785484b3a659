/**
 * `npm start`'s app with the change history on or off, for `bench:history`: the same configuration, layers and
 * listeners, with `ChangeLog.Recording` set by the first argument (`on` or `off`). Never part of `npm start`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { ChangeLog } from "@tawsil/changes"
import * as App from "@tawsil/http/src/App.ts"
import * as AppConfig from "@tawsil/http/src/AppConfig.ts"
import { Effect, Layer } from "effect"

const recording = process.argv[2] !== "off"

NodeRuntime.runMain(
  Effect.gen(function* () {
    const config = yield* AppConfig.load
    return yield* Layer.launch(App.layer(config).pipe(Layer.provide(Layer.succeed(ChangeLog.Recording, recording))))
  }).pipe(Effect.orDie)
)
