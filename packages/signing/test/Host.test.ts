/**
 * `@tawsil/signing` used as another host would use it — through the package's public exports only: a small
 * `node:http` service that accepts `TW-Public` signed calls (its own key table, the memory nonce store), called by a
 * client that signs with nothing but `node:crypto` (the snippet of docs/signing.md); and a webhook receiver that
 * checks `X-TW-Signature` with the package, fed deliveries signed by the package.
 */
import { createHash, createHmac, randomBytes } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { NonceStore, RequestSignature, RequestVerifier, WebhookSignature } from "@tawsil/signing"
import { Effect, Exit, Layer, ManagedRuntime, Redacted, Result } from "effect"

const KEY_ID = "twpub_live_h0st3xampl3ab"
const SECRET = randomBytes(32).toString("hex")

/** The host: its keys, its verifier on a memory nonce store, and one route. */
const startHost = () => {
  const keys = new Map([[KEY_ID, Redacted.make(SECRET)]])
  const runtime = ManagedRuntime.make(RequestVerifier.layer.pipe(Layer.provide(NonceStore.layerMemory)))
  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks)
      const [scheme, keyId] = (request.headers.authorization ?? "").split(" ")
      const secret = keys.get(keyId ?? "")
      const header = (name: string) => request.headers[name] as string | undefined
      const check: Effect.Effect<
        unknown,
        { readonly reason: { readonly _tag: string } },
        RequestVerifier.RequestVerifier
      > =
        scheme !== RequestSignature.SCHEME || secret === undefined || keyId === undefined
          ? Effect.fail({ reason: { _tag: "UnknownKey" } })
          : Effect.flatMap(RequestVerifier.RequestVerifier, (verifier) =>
              verifier.verify(
                {
                  keyId,
                  timestamp: header(RequestSignature.TIMESTAMP_HEADER),
                  nonce: header(RequestSignature.NONCE_HEADER),
                  signature: header(RequestSignature.SIGNATURE_HEADER),
                  body
                },
                secret
              )
            )
      runtime.runPromiseExit(check).then((exit) => {
        if (Exit.isSuccess(exit)) {
          response.writeHead(202, { "content-type": "application/json" }).end('{"accepted":true}')
        } else {
          const reason = Exit.findErrorOption(exit)
          const tag = reason._tag === "Some" ? reason.value.reason._tag : "Defect"
          response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ reason: tag }))
        }
      })
    })
  })
  return new Promise<{ readonly url: string; readonly close: () => Promise<void> }>((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}/v1/events`,
        close: () => new Promise((done) => server.close(() => runtime.dispose().then(done)))
      })
    })
  )
}

/** The client of docs/signing.md: node:crypto only. */
const signedHeaders = (keyId: string, secret: string, body: string, options: { nonce?: string; at?: number } = {}) => {
  const timestamp = String(options.at ?? Math.floor(Date.now() / 1000))
  const nonce = options.nonce ?? randomBytes(16).toString("hex")
  const digest = createHash("sha256").update(body).digest("hex")
  const signature = createHmac("sha256", secret).update(`${keyId}\n${nonce}\n${timestamp}\n${digest}`).digest("hex")
  return {
    authorization: `TW-Public ${keyId}`,
    "x-tw-timestamp": timestamp,
    "x-tw-nonce": nonce,
    "x-tw-signature": signature,
    "content-type": "application/json"
  }
}

const post = (url: string, headers: Record<string, string>, body: string) =>
  fetch(url, { method: "POST", headers, body }).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as { readonly reason?: string }
  }))

describe("@tawsil/signing in another host", () => {
  it("accepts a call signed with node:crypto alone, once; refuses a wrong secret, a changed byte, an old timestamp", async () => {
    const host = await startHost()
    try {
      const body = JSON.stringify({ event: "add_to_cart", user_id: "u_1001", properties: { product_id: 7 } })
      const headers = signedHeaders(KEY_ID, SECRET, body)
      assert.deepStrictEqual(await post(host.url, headers, body), { status: 202, body: { accepted: true } as never })
      assert.deepStrictEqual(await post(host.url, headers, body), { status: 401, body: { reason: "NonceReused" } })
      const wrong = signedHeaders(KEY_ID, randomBytes(32).toString("hex"), body)
      assert.deepStrictEqual((await post(host.url, wrong, body)).body, { reason: "SignatureMismatch" })
      const changed = signedHeaders(KEY_ID, SECRET, body)
      assert.deepStrictEqual((await post(host.url, changed, body.replace("7", "8"))).body, {
        reason: "SignatureMismatch"
      })
      const old = signedHeaders(KEY_ID, SECRET, body, { at: Math.floor(Date.now() / 1000) - 600 })
      assert.deepStrictEqual((await post(host.url, old, body)).body, { reason: "TimestampOutOfWindow" })
      const unknown = signedHeaders("twpub_live_n0n3xist3ntab", SECRET, body)
      assert.deepStrictEqual((await post(host.url, unknown, body)).body, { reason: "UnknownKey" })
    } finally {
      await host.close()
    }
  })

  it("checks deliveries signed by the package, during a rotation too, from the raw body bytes", () => {
    const current = Redacted.make(`whsec_${randomBytes(32).toString("hex")}`)
    const previous = Redacted.make(`whsec_${randomBytes(32).toString("hex")}`)
    const body = Buffer.from(
      JSON.stringify({
        id: "evt_1",
        event: "order.created",
        created_at: "2026-01-01T01:00:00+01:00",
        store_id: 1,
        data: {}
      })
    )
    const now = Math.floor(Date.now() / 1000)
    const header = WebhookSignature.header([current, previous], now, body)
    for (const held of [current, previous]) {
      assert.isTrue(Result.isSuccess(WebhookSignature.verify({ header, body, secrets: [held], nowSeconds: now })))
    }
    const tampered = Buffer.from(body.toString().replace("evt_1", "evt_2"))
    assert.isTrue(
      Result.isFailure(WebhookSignature.verify({ header, body: tampered, secrets: [current], nowSeconds: now }))
    )
  })
})
