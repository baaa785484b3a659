/**
 * Bad configuration, read by the app's own reader (`AppConfig.load`) from an environment as a test process gets it
 * (`environment`: PATH, HOME, ports chosen by the OS, then the case's variables): each case fails naming its variable,
 * in the words of the line `npm start` prints (`tawsil: invalid configuration: …`), and never repeats a password.
 * The process itself (exit code 78, that one line on stderr and nothing else, no secret in it) is
 * `App.process.test.ts`'s, with one of these cases.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as AppConfig from "../src/AppConfig.ts"
import { environment } from "./AppProcess.ts"

/** The message `main.ts` prints after `tawsil: invalid configuration: ` when the configuration cannot be read. */
const failureOf = (env: Record<string, string>) =>
  AppConfig.load.pipe(
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: environment(env) }))),
    Effect.flip,
    Effect.map((error) => error.message)
  )

describe("bad configuration", () => {
  const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
    [{ STORE_PORT: "abc" }, "STORE_PORT"],
    [{ SHIPPING_PORT: "70000" }, "SHIPPING_PORT"],
    [{ SHIPPING_PORT: "9000", STORE_PORT: "9000" }, "STORE_PORT"],
    [{ MAX_BODY_BYTES: "1mb" }, "MAX_BODY_BYTES"],
    [{ SHUTDOWN_TIMEOUT_MS: "-1" }, "SHUTDOWN_TIMEOUT_MS"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    [{ DATABASE_URL: "mysql://admin:hunter2@db.example/x" }, "DATABASE_URL"],
    [{ DATABASE_URL: "postgres://admin:hunter2@127.0.0.1/x", DATABASE_POOL_SIZE: "0" }, "DATABASE_POOL_SIZE"],
    [{ DATABASE_URL: "postgres://admin:hunter2@127.0.0.1/x", DATABASE_POOL_SIZE: "1" }, "DATABASE_POOL_SIZE"]
  ]
  for (const [env, variable] of cases) {
    it.effect(`${JSON.stringify(env)} is refused in one line naming ${variable}`, () =>
      Effect.gen(function* () {
        const message = yield* failureOf(env)
        assert.notInclude(message, "\n", "one line")
        assert.match(message, new RegExp(`^${variable}: expected `))
        assert.notInclude(message, "hunter2", "a password is never echoed")
      })
    )
  }

  it.effect("the same environment without the bad variable is read", () =>
    Effect.gen(function* () {
      const config = yield* AppConfig.load.pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: environment({}) })))
      )
      assert.strictEqual(config.shippingPort, 0)
      assert.strictEqual(config.storePort, 0)
    })
  )
})
