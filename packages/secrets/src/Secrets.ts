/**
 * The service domain packages seal and open their kept secrets with, under the key ring the host configured
 * (`SecretBox` over the ring of the moment). A host may have no key at all (a server database and no
 * `TAWSIL_SECRET_KEY`): then a write that must seal fails with the `KeyMissing` reason, which names the variable, and
 * everything that needs no key keeps working. The ring is read on every call, so a host that rotates its key
 * (`layerRef`) swaps it under the running services.
 */
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, type Redacted, Ref, Result } from "effect"
import * as KeyRing from "./KeyRing.ts"
import * as SecretBox from "./SecretBox.ts"
import { KEY_VARIABLE, KeyMissing, SecretsError } from "./SecretsError.ts"

export class Secrets extends Context.Service<
  Secrets,
  {
    /** `plaintext` sealed under the current key, bound to `associatedData` (where the value is stored). */
    readonly seal: (plaintext: Redacted.Redacted<string>, associatedData: string) => Effect.Effect<string, SecretsError>
    /** The plaintext of a value sealed with the same `associatedData`, under the current or a previous key. */
    readonly open: (sealed: string, associatedData: string) => Effect.Effect<Redacted.Redacted<string>, SecretsError>
    /** A short keyed fingerprint of a secret (`SecretBox.fingerprint`): tells stored secrets apart, shows nothing. */
    readonly fingerprint: (secret: Redacted.Redacted<string>) => Effect.Effect<string, SecretsError>
    /** The value sealed under the current key (itself when it already is). */
    readonly reseal: (sealed: string, associatedData: string) => Effect.Effect<string, SecretsError>
    /** Whether the value names a key other than the current one; false with no key configured. */
    readonly needsReseal: (sealed: string) => Effect.Effect<boolean>
    /** The ring in use, undefined when no key is configured (to say which key seals, never to hand keys around). */
    readonly ring: Effect.Effect<KeyRing.KeyRing | undefined>
  }
>()("@tawsil/secrets/Secrets") {}

const missing = () => new SecretsError({ reason: new KeyMissing({ variable: KEY_VARIABLE }) })

/** The service over a ring that may change (a rotation); `undefined` in it: no key configured. */
export const make = (keys: Ref.Ref<KeyRing.KeyRing | undefined>) =>
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const ringOrFail = Effect.flatMap(Ref.get(keys), (ring) =>
      ring === undefined ? Effect.fail(missing()) : Effect.succeed(ring)
    )
    const answer = <A>(result: Result.Result<A, SecretsError["reason"]>) =>
      Result.isSuccess(result)
        ? Effect.succeed(result.success)
        : Effect.fail(new SecretsError({ reason: result.failure }))
    return Secrets.of({
      seal: method("Secrets.seal")(function* (plaintext, associatedData) {
        return SecretBox.seal(yield* ringOrFail, plaintext, associatedData)
      }),
      open: method("Secrets.open")(function* (sealed, associatedData) {
        return yield* answer(SecretBox.open(yield* ringOrFail, sealed, associatedData))
      }),
      fingerprint: method("Secrets.fingerprint")(function* (secret) {
        return SecretBox.fingerprint(yield* ringOrFail, secret)
      }),
      reseal: method("Secrets.reseal")(function* (sealed, associatedData) {
        return yield* answer(SecretBox.reseal(yield* ringOrFail, sealed, associatedData))
      }),
      needsReseal: (sealed) =>
        Effect.map(Ref.get(keys), (ring) => ring !== undefined && SecretBox.needsReseal(ring, sealed)),
      ring: Ref.get(keys)
    })
  })

/** The service over a ring that `keys` holds and its owner may replace (the app's key rotation). */
export const layerRef = (keys: Ref.Ref<KeyRing.KeyRing | undefined>) => Layer.effect(Secrets, make(keys))

/** The service over a fixed ring; `undefined`: no key configured (every seal and open fails with `KeyMissing`). */
export const layer = (ring: KeyRing.KeyRing | undefined) => Layer.effect(Secrets, Effect.flatMap(Ref.make(ring), make))

/** For tests: a ring of one new random key. */
export const layerTest = Layer.effect(
  Secrets,
  Effect.flatMap(
    Effect.sync(() => Result.getOrThrow(KeyRing.make(KeyRing.generate()))),
    (ring) => Effect.flatMap(Ref.make<KeyRing.KeyRing | undefined>(ring), make)
  )
)
