import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { KeyFile, type KeyRing, KeyRotation, Resealing, SecretBox, Secrets } from "@tawsil/secrets"
import { Effect, Exit, Redacted, Ref, Result } from "effect"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "tawsil-rotation-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** A table of sealed values in memory, as a rotation walks one; `failAfter` writes, it dies (a crash). */
const table = (rows: Map<number, string>, options: { failAfter?: number } = {}) => {
  let writes = 0
  const column: Resealing.Column<number, never, never> = {
    name: "test.secret",
    page: ({ after, limit }) =>
      Effect.sync(() =>
        [...rows.keys()]
          .sort((a, b) => a - b)
          .filter((id) => after === undefined || id > after)
          .slice(0, limit)
          .map((id) => ({ id, sealed: rows.get(id)!, associatedData: `test:${id}` }))
      ),
    replace: (stored, resealed) =>
      Effect.suspend(() => {
        if (options.failAfter !== undefined && writes >= options.failAfter) return Effect.die("crash")
        writes++
        if (rows.get(stored.id) !== stored.sealed) return Effect.succeed(false)
        rows.set(stored.id, resealed)
        return Effect.succeed(true)
      })
  }
  return column
}

/** A process: its ring from the key file, and the rotation's steps over it. */
interface Crash {
  /** The walk dies after this many writes. */
  readonly failAfter?: number
  /** The process dies on this call of `use`. */
  readonly useFails?: number
  /** The walk dies at the start of this pass. */
  readonly passFails?: number
}

const processOn = (path: string, rows: Map<number, string>, crash: Crash = {}) =>
  Effect.gen(function* () {
    const keys = yield* Ref.make<KeyRing.KeyRing | undefined>(yield* KeyFile.loadOrCreate(path))
    const secrets = yield* Secrets.make(keys)
    let uses = 0
    let passes = 0
    const steps = {
      use: (ring: KeyRing.KeyRing) =>
        Effect.suspend(() => (++uses === crash.useFails ? Effect.die("crash") : Ref.set(keys, ring))),
      reseal: Effect.suspend(() => (++passes === crash.passFails ? Effect.die("crash") : Effect.void)).pipe(
        Effect.andThen(Resealing.run(table(rows, crash), { pageSize: 7 })),
        Effect.map((report) => [report]),
        Effect.provideService(Secrets.Secrets, secrets)
      )
    }
    return { keys, secrets, steps }
  })

const seedRows = (path: string, count: number) =>
  Effect.gen(function* () {
    const ring = yield* KeyFile.loadOrCreate(path)
    const rows = new Map<number, string>()
    for (let id = 1; id <= count; id++) rows.set(id, SecretBox.seal(ring, Redacted.make(`value ${id}`), `test:${id}`))
    return { ring, rows }
  })

/** Every value opens with the ring in the file, to its own plaintext. */
const assertAllReadable = (path: string, rows: Map<number, string>) =>
  Effect.gen(function* () {
    const ring = yield* KeyFile.read(path)
    for (const [id, sealed] of rows) {
      const opened = SecretBox.open(ring, sealed, `test:${id}`)
      assert.isTrue(Result.isSuccess(opened), `row ${id} opens`)
      assert.strictEqual(Redacted.value(Result.getOrThrow(opened)), `value ${id}`)
    }
    return ring
  })

describe("KeyRotation", () => {
  it.effect("rotates the key file: every value re-sealed under a new key, the old key retired", () =>
    Effect.gen(function* () {
      const path = KeyFile.pathIn(yield* tempDir)
      const { ring: before, rows } = yield* seedRows(path, 30)
      const process = yield* processOn(path, rows)
      const rotated = yield* KeyRotation.rotateKeyFile(path, process.steps)
      assert.isTrue(rotated.finished)
      assert.isFalse(rotated.resumed)
      assert.deepStrictEqual(rotated.retired, [before.current.id])
      assert.notStrictEqual(rotated.keyId, before.current.id)
      assert.strictEqual(rotated.resealed.passes[0]![0]!.resealed, 30)
      const after = yield* assertAllReadable(path, rows)
      assert.strictEqual(after.current.id, rotated.keyId)
      assert.deepStrictEqual(after.previous, [])
      for (const sealed of rows.values()) assert.isTrue(sealed.startsWith(SecretBox.prefix(after.current)))
      // The running process uses the retired ring too.
      assert.deepStrictEqual((yield* Ref.get(process.keys))?.previous, [])
    }).pipe(Effect.scoped)
  )

  const crashes: ReadonlyArray<readonly [string, Crash]> = [
    ["after the new key is written, before the process uses it", { useFails: 1 }],
    ["part way through the walk", { failAfter: 11 }],
    ["after every value is re-sealed, before the old key is retired", { passFails: 2 }],
    ["after the old key is retired in the file, before the process drops it", { useFails: 2 }]
  ]
  for (const [when, crash] of crashes) {
    it.effect(`leaves every value readable after a crash ${when}, and a rerun finishes the job`, () =>
      Effect.gen(function* () {
        const path = KeyFile.pathIn(yield* tempDir)
        const { ring: before, rows } = yield* seedRows(path, 30)
        const crashed = yield* processOn(path, rows, crash)
        const exit = yield* Effect.exit(KeyRotation.rotateKeyFile(path, crashed.steps))
        assert.isTrue(Exit.hasDies(exit), "the run crashed")
        yield* assertAllReadable(path, rows)

        // A new process, from the file as the crash left it.
        const rerun = yield* processOn(path, rows)
        const rotated = yield* KeyRotation.rotateKeyFile(path, rerun.steps)
        assert.isTrue(rotated.finished)
        const after = yield* assertAllReadable(path, rows)
        assert.deepStrictEqual(after.previous, [])
        assert.notStrictEqual(after.current.id, before.current.id)
        for (const sealed of rows.values()) assert.isTrue(sealed.startsWith(SecretBox.prefix(after.current)))
      }).pipe(Effect.scoped)
    )
  }

  it.effect("keeps the old key when a value it sealed does not open (a walk with the wrong associated data)", () =>
    Effect.gen(function* () {
      const path = KeyFile.pathIn(yield* tempDir)
      const { ring: before, rows } = yield* seedRows(path, 3)
      // Row 2 was stored under another associated data than the walk reads it with.
      rows.set(2, SecretBox.seal(before, Redacted.make("value 2"), "somewhere else"))
      const process = yield* processOn(path, rows)
      const rotated = yield* KeyRotation.rotateKeyFile(path, process.steps)
      assert.isFalse(rotated.finished)
      assert.deepStrictEqual(rotated.retired, [])
      assert.deepStrictEqual(rotated.resealed.unreadable, [
        { column: "test.secret", id: "2", reason: "Tampered", keyId: before.current.id }
      ])
      const file = yield* KeyFile.read(path)
      assert.deepStrictEqual(
        file.previous.map((key) => key.id),
        [before.current.id]
      )
      assert.isTrue(Result.isSuccess(SecretBox.open(file, rows.get(2)!, "somewhere else")), "still readable")
    }).pipe(Effect.scoped)
  )

  it.effect("walks again until a pass finds nothing left: a write sealed under the old key meanwhile is caught", () =>
    Effect.gen(function* () {
      const path = KeyFile.pathIn(yield* tempDir)
      const { ring: before, rows } = yield* seedRows(path, 5)
      const process = yield* processOn(path, rows)
      let injected = false
      const steps = {
        ...process.steps,
        // A late write of the old ring, landing after the first pass went by.
        reseal: Effect.tap(process.steps.reseal, () =>
          Effect.sync(() => {
            if (injected) return
            injected = true
            rows.set(6, SecretBox.seal(before, Redacted.make("value 6"), "test:6"))
          })
        )
      }
      const rotated = yield* KeyRotation.rotateKeyFile(path, steps)
      assert.isTrue(rotated.finished)
      assert.strictEqual(rotated.resealed.passes.length, 3)
      assert.deepStrictEqual(
        rotated.resealed.passes.map(([report]) => report!.resealed),
        [5, 1, 0]
      )
      yield* assertAllReadable(path, rows)
    }).pipe(Effect.scoped)
  )
})
