import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { KeyFile, KeyRing } from "@tawsil/secrets"
import { Effect, Result } from "effect"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-keyfile-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const modeOf = (path: string) => Fs.statSync(path).mode & 0o777

describe("KeyFile", () => {
  it.effect("creates the file at first use with one new key, mode 0600, and reads the same ring after", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = KeyFile.pathIn(Path.join(dir, "data"))
      const first = yield* KeyFile.loadOrCreate(path)
      assert.strictEqual(modeOf(path), 0o600)
      assert.deepStrictEqual(first.previous, [])
      const again = yield* KeyFile.loadOrCreate(path)
      assert.strictEqual(again.current.id, first.current.id)
      assert.deepStrictEqual(
        Fs.readdirSync(Path.dirname(path)),
        [KeyFile.FILE_NAME],
        "no temporary file is left behind"
      )
    }).pipe(Effect.scoped)
  )

  it.effect("is created exclusively: a second creation finds the first file and leaves it as it was", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = KeyFile.pathIn(dir)
      const one = Result.getOrThrow(KeyRing.make(KeyRing.generate()))
      const two = Result.getOrThrow(KeyRing.make(KeyRing.generate()))
      assert.isTrue(yield* KeyFile.createExclusive(path, KeyFile.render(one)))
      assert.isFalse(yield* KeyFile.createExclusive(path, KeyFile.render(two)))
      assert.strictEqual((yield* KeyFile.read(path)).current.id, one.current.id)
      assert.deepStrictEqual(Fs.readdirSync(dir), [KeyFile.FILE_NAME])
    }).pipe(Effect.scoped)
  )

  it.live("makes one key when several processes start at once on an empty directory", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = KeyFile.pathIn(Path.join(dir, "data"))
      const script = [
        'import { KeyFile } from "@tawsil/secrets"',
        'import { Effect } from "effect"',
        "const ring = await Effect.runPromise(KeyFile.loadOrCreate(process.argv[1]))",
        "process.stdout.write(ring.current.id)"
      ].join("\n")
      const start = () =>
        Effect.callback<string>((resume) => {
          const child = spawn(
            process.execPath,
            ["--conditions=@tawsil/source", "--input-type=module", "-e", script, path],
            { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] }
          )
          let out = ""
          let err = ""
          child.stdout.on("data", (chunk) => {
            out += chunk
          })
          child.stderr.on("data", (chunk) => {
            err += chunk
          })
          child.on("close", (code) =>
            resume(code === 0 ? Effect.succeed(out) : Effect.die(new Error(`exit ${code}: ${err}`)))
          )
        })
      const ids = yield* Effect.all(Array.from({ length: 4 }, start), { concurrency: "unbounded" })
      assert.strictEqual(new Set(ids).size, 1, `one key for all: ${ids.join(", ")}`)
      assert.strictEqual(ids[0], (yield* KeyFile.read(path)).current.id)
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(path)), [KeyFile.FILE_NAME])
    }).pipe(Effect.scoped)
  )

  it.effect("refuses a file other users may read, naming the mode and the fix, and a symbolic link", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = KeyFile.pathIn(dir)
      yield* KeyFile.loadOrCreate(path)
      for (const mode of [0o644, 0o640, 0o604, 0o660]) {
        Fs.chmodSync(path, mode)
        const refused = yield* Effect.flip(KeyFile.loadOrCreate(path))
        assert.strictEqual(refused.reason, "Exposed")
        assert.include(refused.message, `mode ${mode.toString(8)}`)
        assert.include(refused.message, `chmod 600 ${path}`)
      }
      Fs.chmodSync(path, 0o400)
      yield* KeyFile.read(path)
      const link = Path.join(dir, "link.key")
      Fs.symlinkSync(path, link)
      assert.strictEqual((yield* Effect.flip(KeyFile.read(link))).reason, "Unusable")
    }).pipe(Effect.scoped)
  )

  it.effect("refuses a file that is not a key file, without repeating its content", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = KeyFile.pathIn(dir)
      const key = KeyRing.format(KeyRing.generate())
      const cases = [
        "",
        "# only a comment\n",
        `current ${key.slice(0, 60)}\n`,
        `current ${key}\ncurrent ${key}\n`,
        `previous ${key}\n`,
        `secret ${key}\n`,
        `current ${"0".repeat(64)}\n`
      ]
      for (const text of cases) {
        Fs.writeFileSync(path, text, { mode: 0o600 })
        const refused = yield* Effect.flip(KeyFile.read(path))
        assert.strictEqual(refused.reason, "Malformed", text)
        assert.notInclude(refused.message, key.slice(0, 60))
      }
    }).pipe(Effect.scoped)
  )

  it.effect("replaces the ring whole, keeping the mode, and reads back what it wrote", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const path = KeyFile.pathIn(dir)
      const first = yield* KeyFile.loadOrCreate(path)
      const next = Result.getOrThrow(KeyRing.key(KeyRing.generate()))
      yield* KeyFile.replace(path, KeyRing.rotate(first, next))
      const read = yield* KeyFile.read(path)
      assert.strictEqual(read.current.id, next.id)
      assert.deepStrictEqual(
        read.previous.map((key) => key.id),
        [first.current.id]
      )
      assert.strictEqual(modeOf(path), 0o600)
      assert.deepStrictEqual(Fs.readdirSync(dir), [KeyFile.FILE_NAME])
    }).pipe(Effect.scoped)
  )
})
