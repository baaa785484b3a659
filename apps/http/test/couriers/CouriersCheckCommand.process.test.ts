/**
 * `npm run couriers:check` as the operator's command (scripts/checkCouriers.ts, a process of its own) against the
 * loopback fakes this process runs: credentials from the environment, `--record` writing fixtures that hold no
 * canary, and usage mistakes exiting 2. What the check reads and reports is tested in process
 * (`CouriersCheck.db.test.ts`).
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { assert, layer } from "@effect/vitest"
import { Recorded } from "@tawsil/courier"
import { Effect, Schema } from "effect"
import * as CourierCheck from "../../src/CourierCheck.ts"
import { assertNoCanary, C, createdFor, Harness, HarnessLive, platforms, ROOT } from "./CouriersCheckHarness.ts"

layer(HarnessLive, { timeout: "120 seconds", excludeTestServices: true })(
  "npm run couriers:check, the command",
  (it) => {
    it.effect(
      "the command: credentials from the environment, --record writes the fixtures, usage mistakes exit 2",
      () =>
        Effect.gen(function* () {
          const { origins } = yield* Harness
          const dhd = platforms[1]!
          const trackingNumber = yield* createdFor(dhd)
          const dir = mkdtempSync(Path.join(Os.tmpdir(), "tawsil-couriers-check-"))
          try {
            // Spawned, not spawnSync: the fakes answer from this process's event loop.
            const run = (args: ReadonlyArray<string>, env: Record<string, string>) =>
              Effect.callback<{ readonly status: number | null; readonly stdout: string; readonly stderr: string }>(
                (resume) => {
                  const child = spawn(
                    process.execPath,
                    ["--conditions=@tawsil/source", "apps/http/src/scripts/checkCouriers.ts", ...args],
                    { cwd: ROOT, env: { PATH: process.env.PATH ?? "", TAWSIL_COURIER_ORIGINS: origins, ...env } }
                  )
                  let stdout = ""
                  let stderr = ""
                  child.stdout.on("data", (chunk) => {
                    stdout += chunk
                  })
                  child.stderr.on("data", (chunk) => {
                    stderr += chunk
                  })
                  child.on("close", (status) => resume(Effect.succeed({ status, stdout, stderr })))
                  return Effect.sync(() => child.kill())
                }
              )
            const ok = yield* run(["--courier", "dhd", "--wilaya", "16", "--track", trackingNumber, "--record", dir], {
              [CourierCheck.credentialVariable("token")]: C.ecotrack
            })
            assert.strictEqual(ok.status, 0, `${ok.stdout}\n${ok.stderr}`)
            assert.include(ok.stdout, "couriers:check dhd (DHD, platform ecotrack): reads only")
            assert.include(ok.stdout, `track ${trackingNumber}`)
            assert.include(ok.stdout, "every read answered, every answer read, every status known")
            const files = readdirSync(Path.join(dir, "dhd"))
            assert.isNotEmpty(files)
            for (const file of files) {
              const text = readFileSync(Path.join(dir, "dhd", file), "utf8")
              assertNoCanary(text, file)
              Schema.decodeUnknownSync(Recorded.Exchange)(JSON.parse(text))
            }
            assertNoCanary(`${ok.stdout}${ok.stderr}`, "the command's output")

            const missing = yield* run(["--courier", "dhd"], {})
            assert.strictEqual(missing.status, 2, missing.stderr)
            assert.include(missing.stderr, "DHD needs its credentials in COURIER_TOKEN")
            const unknown = yield* run(["--courier", "nobody"], {})
            assert.strictEqual(unknown.status, 2, unknown.stderr)
            assert.include(unknown.stderr, 'no installed adapter serves "nobody"')
          } finally {
            rmSync(dir, { recursive: true, force: true })
          }
        })
    )
  }
)
