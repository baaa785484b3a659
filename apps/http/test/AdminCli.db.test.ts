/**
 * The admin CLI with no app running: it opens the data directory itself (the embedded database, in this process,
 * through the entry `npm run admin` runs: `runAdminInProcess`). Its processes, next to a running app, after an app
 * was killed and on a real server, are `AdminCli.process.test.ts`'s.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as TestDatabase from "@tawsil/storage/TestDatabase"
import { Effect } from "effect"
import { ADDRESS_FILE } from "../src/admin/AdminListener.ts"
import { type AdminOutput, runAdminInProcess } from "./AdminInProcess.ts"

/** Each command opens the embedded database: generous on a loaded machine. */
const TIMEOUT = 180_000

const admin = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  Effect.orDie(runAdminInProcess(env, ...args))

const ok = (run: AdminOutput) => {
  assert.strictEqual(run.code, 0, `${run.stdout}\n${run.stderr}`)
  assert.isUndefined(run.json.error)
  return run.json
}

const refused = (run: AdminOutput, code = 1) => {
  assert.strictEqual(run.code, code, run.stdout)
  assert.deepStrictEqual(Object.keys(run.json), ["error"])
  return run.json.error.message as string
}

/** A data directory holding an initialised database (copied from a template: no initdb per test). */
const dataDir = Effect.map(TestDatabase.freshDataDir, (dir) => ({ DATA_DIR: dir }))

describe("the admin CLI", () => {
  it.live(
    "works with no app running, opening the data directory itself",
    () =>
      Effect.gen(function* () {
        const env = yield* dataDir
        const created = ok(yield* admin(env, "store", "create", "--name", "Quiet shop", "--plan", "pro"))
        assert.deepInclude(created.store, { id: 1, slug: "quiet-shop", plan: "pro", language: "ar" })
        const key = ok(yield* admin(env, "key", "create", "--store", "1", "--type", "public"))
        assert.strictEqual(key.status, "active")
        const quota = ok(yield* admin(env, "quota", "set", "--store", "1", "--requests-per-minute", "-1"))
        assert.strictEqual(quota.effective.requests_per_minute, -1)
        assert.strictEqual(
          refused(yield* admin(env, "key", "create", "--store", "2", "--type", "public")),
          "Store 2 not found"
        )
        assert.deepStrictEqual(ok(yield* admin(env, "store", "addon", "--store", "1", "--promo-codes", "off")), {
          store_id: 1,
          addons: { promo_codes: false }
        })
        assert.strictEqual(
          refused(yield* admin(env, "store", "addon", "--store", "2", "--promo-codes", "on")),
          "Store 2 not found"
        )
        assert.isFalse(Fs.existsSync(Path.join(env.DATA_DIR, ADDRESS_FILE)))
      }).pipe(Effect.scoped),
    TIMEOUT
  )
})
