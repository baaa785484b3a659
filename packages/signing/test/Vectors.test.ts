/**
 * The test vectors published in docs/signing.md, read from that page (so the page and the code cannot drift apart),
 * checked against the package: every digest, string to sign, signature and header; the Standard Webhooks ones
 * against the scheme's own `standardwebhooks` library too.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Redacted, Result } from "effect"
import { Webhook } from "standardwebhooks"
import * as Nonce from "../src/Nonce.ts"
import * as RequestSignature from "../src/RequestSignature.ts"
import * as StandardWebhookSignature from "../src/StandardWebhookSignature.ts"
import * as WebhookSignature from "../src/WebhookSignature.ts"

interface RequestVector {
  readonly name: string
  readonly key_id: string
  readonly secret: string
  readonly nonce: string
  readonly timestamp: string
  readonly body: string
  readonly body_sha256: string
  readonly string_to_sign: string
  readonly signature: string
}

interface WebhookVector {
  readonly name: string
  readonly secrets: ReadonlyArray<string>
  readonly timestamp: number
  readonly body: string
  readonly signed_payload: string
  readonly header: string
}

interface StandardWebhookVector {
  readonly name: string
  readonly secrets: ReadonlyArray<string>
  readonly keys_hex: ReadonlyArray<string>
  readonly id: string
  readonly timestamp: number
  readonly body: string
  readonly signed_content: string
  readonly headers: Readonly<Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string>>
}

const page = Fs.readFileSync(Path.resolve(import.meta.dirname, "../../../docs/signing.md"), "utf8")
const block = /<!-- vectors:start -->\s*```json\n([\s\S]*?)\n```\s*<!-- vectors:end -->/.exec(page)
const vectors = JSON.parse(block?.[1] ?? "{}") as {
  readonly request_signatures: ReadonlyArray<RequestVector>
  readonly webhook_signatures: ReadonlyArray<WebhookVector>
  readonly standard_webhook_signatures: ReadonlyArray<StandardWebhookVector>
}

describe("docs/signing.md vectors", () => {
  it("publishes request and webhook vectors", () => {
    assert.isAtLeast(vectors.request_signatures.length, 4)
    assert.isAtLeast(vectors.webhook_signatures.length, 3)
    assert.isTrue(
      vectors.request_signatures.some((vector) => vector.body === ""),
      "an empty body"
    )
    assert.isTrue(
      vectors.webhook_signatures.some((vector) => vector.secrets.length === 2),
      "a rotation"
    )
    assert.isAtLeast(vectors.standard_webhook_signatures.length, 3)
    assert.isTrue(
      vectors.standard_webhook_signatures.some((vector) => vector.secrets.length === 2),
      "a Standard Webhooks rotation"
    )
  })

  for (const vector of vectors.request_signatures ?? []) {
    it(`request: ${vector.name}`, () => {
      const secret = Redacted.make(vector.secret)
      assert.strictEqual(RequestSignature.bodyDigest(vector.body), vector.body_sha256)
      const parts = {
        keyId: vector.key_id,
        nonce: vector.nonce,
        timestamp: vector.timestamp,
        bodySha256: vector.body_sha256
      }
      assert.strictEqual(RequestSignature.stringToSign(parts), vector.string_to_sign)
      assert.strictEqual(RequestSignature.sign(secret, parts), vector.signature)
      if (Nonce.isNonce(vector.nonce)) {
        const request = {
          keyId: vector.key_id,
          timestamp: vector.timestamp,
          nonce: vector.nonce,
          signature: vector.signature,
          body: vector.body
        }
        assert.isTrue(Result.isSuccess(RequestSignature.verify(request, secret, Number(vector.timestamp))))
        const headers = RequestSignature.headers({
          keyId: vector.key_id,
          secret,
          body: vector.body,
          timestamp: Number(vector.timestamp),
          nonce: vector.nonce
        })
        assert.strictEqual(headers["x-tw-signature"], vector.signature)
      }
    })
  }

  for (const vector of vectors.webhook_signatures ?? []) {
    it(`webhook: ${vector.name}`, () => {
      const secrets = vector.secrets.map((secret) => Redacted.make(secret))
      assert.strictEqual(WebhookSignature.signedPayload(vector.timestamp, vector.body), vector.signed_payload)
      assert.strictEqual(WebhookSignature.header(secrets, vector.timestamp, vector.body), vector.header)
      for (const secret of secrets) {
        const verified = WebhookSignature.verify({
          header: vector.header,
          body: vector.body,
          secrets: [secret],
          nowSeconds: vector.timestamp
        })
        assert.isTrue(Result.isSuccess(verified))
      }
    })
  }

  for (const vector of vectors.standard_webhook_signatures ?? []) {
    it(`Standard Webhooks: ${vector.name}`, () => {
      const secrets = vector.secrets.map((secret) => Redacted.make(secret))
      assert.deepStrictEqual(
        secrets.map((secret) => StandardWebhookSignature.key(secret)?.toString("hex")),
        [...vector.keys_hex]
      )
      assert.strictEqual(
        StandardWebhookSignature.signedContent(vector.id, vector.timestamp, vector.body),
        vector.signed_content
      )
      assert.deepStrictEqual(
        StandardWebhookSignature.headers({ id: vector.id, timestamp: vector.timestamp, body: vector.body, secrets }),
        vector.headers
      )
      const signatures = vector.headers["webhook-signature"].split(" ")
      secrets.forEach((secret, index) => {
        const verified = StandardWebhookSignature.verify({
          headers: vector.headers,
          body: vector.body,
          secrets: [secret],
          nowSeconds: vector.timestamp
        })
        assert.isTrue(Result.isSuccess(verified))
        // The scheme's own library, given the secret as published, signs the same bytes.
        const library = new Webhook(Redacted.value(secret)).sign(
          vector.id,
          new Date(vector.timestamp * 1000),
          vector.body
        )
        assert.strictEqual(library, signatures[index])
      })
    })
  }
})
