/**
 * This process's secret keys (docs/operations.md "Secret key"): the `Secrets` service over the ring the
 * configuration names — `TAWSIL_SECRET_KEY` (with `TAWSIL_SECRET_KEY_PREVIOUS`), the data directory's key file
 * (created at the first start), or none — and the operator's two operations on it, run where the database is
 * (`AdminRequest`: in the CLI, or in the server that holds the embedded database): `reseal`, every stored value
 * under the current key, and `rotate`, the key file's rotation. No key is ever logged: only key ids, which are public.
 */
import { AdminError } from "@tawsil/access"
import { KeyFile, type KeyRing, KeyRotation, type Resealing, Secrets, type SecretsError } from "@tawsil/secrets"
import { Context, Effect, Layer, Ref } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import type { AppConfig } from "../AppConfig.ts"
import * as SealedValues from "./SealedValues.ts"

export class SecretKeys extends Context.Service<
  SecretKeys,
  {
    /** Re-seals every stored value under the current key, until a pass finds nothing left under another one. */
    readonly reseal: Effect.Effect<KeyRotation.Resealed, AdminError.AdminError | SqlError.SqlError>
    /** Rotates the key file: refused where the key comes from `TAWSIL_SECRET_KEY`, or where there is none. */
    readonly rotate: Effect.Effect<KeyRotation.Rotated, AdminError.AdminError | SqlError.SqlError>
  }
>()("@tawsil/http/admin/SecretKeys") {}

const refused = (message: string) => AdminError.fail(new AdminError.InvalidAdminInput({ message }))

const describe = (ring: KeyRing.KeyRing) => ({
  keyId: ring.current.id,
  previousKeyIds: ring.previous.map((key) => key.id)
})

/** The ring the configuration names: read, or for the key file created at the first start. */
const initialRing = (keys: AppConfig["secretKeys"]) => {
  switch (keys.kind) {
    case "variable":
      return Effect.succeed(keys.ring)
    case "file":
      return KeyFile.loadOrCreate(keys.path)
    case "none":
      return Effect.succeed(undefined)
  }
}

/** The server's line at start: which key seals (by id), or a warning that none does. */
export const announce = (keys: AppConfig["secretKeys"]) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const ring = yield* (yield* Secrets.Secrets).ring
      yield* ring === undefined
        ? Effect.logWarning(
            "no secret key: storing courier credentials is refused until TAWSIL_SECRET_KEY is set (docs/operations.md)"
          )
        : Effect.logInfo("secret key").pipe(Effect.annotateLogs({ source: keys.kind, ...describe(ring) }))
    })
  )

export const layer = (
  keys: AppConfig["secretKeys"],
  pass: Effect.Effect<
    ReadonlyArray<Resealing.Report>,
    SqlError.SqlError | SecretsError.SecretsError,
    Secrets.Secrets | SqlClient.SqlClient
  > = SealedValues.pass
): Layer.Layer<SecretKeys | Secrets.Secrets, KeyFile.KeyFileError, SqlClient.SqlClient> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const initial = yield* initialRing(keys)
      const ring = yield* Ref.make<KeyRing.KeyRing | undefined>(initial)
      const operations = Layer.effect(
        SecretKeys,
        Effect.gen(function* () {
          const context = yield* Effect.context<Secrets.Secrets | SqlClient.SqlClient>()
          const walk = pass.pipe(
            Effect.catchTag("SecretsError", (error) => refused(error.message)),
            Effect.provideContext(context)
          )
          const reseal = Effect.gen(function* () {
            if ((yield* Ref.get(ring)) === undefined) {
              return yield* refused(
                "no secret key is configured: set TAWSIL_SECRET_KEY (64 hexadecimal characters); nothing can be re-sealed"
              )
            }
            return yield* KeyRotation.resealAll(walk)
          })
          const rotate = Effect.gen(function* () {
            if (keys.kind !== "file") {
              return yield* refused(
                keys.kind === "variable"
                  ? "the key comes from TAWSIL_SECRET_KEY: set the new key there and the old one in " +
                      "TAWSIL_SECRET_KEY_PREVIOUS on every instance, then run `secrets reseal` (docs/operations.md)"
                  : "no secret key is configured (TAWSIL_SECRET_KEY): there is nothing to rotate"
              )
            }
            const rotated = yield* KeyRotation.rotateKeyFile(keys.path, {
              use: (next) =>
                Ref.set(ring, next).pipe(
                  Effect.andThen(Effect.logInfo("secret key in use").pipe(Effect.annotateLogs(describe(next))))
                ),
              reseal: walk
            }).pipe(Effect.catchTag("KeyFileError", (error) => refused(error.message)))
            return rotated
          })
          return SecretKeys.of({ reseal, rotate })
        })
      )
      return operations.pipe(Layer.provideMerge(Secrets.layerRef(ring)))
    })
  )
