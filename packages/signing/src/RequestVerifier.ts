/**
 * Checks a signed call completely: `RequestSignature.verify` at the current time (`Clock`), then the nonce's single
 * use (`NonceStore.consume`), in that order — a call whose signature fails never uses up a nonce. Hosts that accept
 * `TW-Public` calls run this with the key's signing secret once they have found the key.
 */
import { Clock, Context, Effect, Layer, type Redacted } from "effect"
import { NonceStore } from "./NonceStore.ts"
import * as RequestSignature from "./RequestSignature.ts"
import * as SigningError from "./SigningError.ts"

export const NONCE_REUSED =
  "X-TW-Nonce was already used by this key within the last hour; sign each call with a new nonce"

export class RequestVerifier extends Context.Service<
  RequestVerifier,
  {
    readonly verify: (
      request: RequestSignature.SignedRequest,
      secret: Redacted.Redacted<string>
    ) => Effect.Effect<RequestSignature.Verified, SigningError.SigningError>
  }
>()("@tawsil/signing/RequestVerifier") {}

export const layer: Layer.Layer<RequestVerifier, never, NonceStore> = Layer.effect(
  RequestVerifier,
  Effect.gen(function* () {
    const nonces = yield* NonceStore
    return RequestVerifier.of({
      verify: Effect.fnUntraced(function* (request, secret) {
        const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const verified = yield* RequestSignature.verifyEffect(request, secret, now)
        if (!(yield* nonces.consume(verified.keyId, verified.nonce))) {
          return yield* SigningError.fail(new SigningError.NonceReused({ message: NONCE_REUSED }))
        }
        return verified
      })
    })
  })
)
