import { assert, describe, it } from "@effect/vitest"
import { Redacted, Schema } from "effect"
import * as Credentials from "../src/Credentials.ts"
import * as Keys from "../src/Keys.ts"

const platformSecret = Credentials.newPlatformSecret()
const signingSecret = Credentials.newSigningSecret()

const created: Keys.CreatedKey = {
  key_id: "twpk_live_abcdefghijklmn",
  bearer_token: Credentials.bearerToken("twpk_live_abcdefghijklmn", platformSecret),
  signing_secret: null,
  note: Keys.PLATFORM_NOTE
}

const createdPublic: Keys.CreatedKey = {
  key_id: "twpub_live_abcdefghijklm",
  bearer_token: null,
  signing_secret: signingSecret,
  note: Keys.PUBLIC_NOTE
}

describe("Keys", () => {
  it("keeps no secret of a created key for its replay, and says so", () => {
    for (const key of [created, createdPublic]) {
      const safe = Keys.replaySafe(key)
      assert.deepStrictEqual(safe, {
        key_id: key.key_id,
        bearer_token: null,
        signing_secret: null,
        note: "Replayed answer: the key's secret was shown only in the first answer and is not kept."
      })
      const wire = JSON.stringify(Schema.encodeSync(Keys.CreatedKey)(safe))
      assert.notInclude(wire, Redacted.value(platformSecret))
      assert.notInclude(wire, Redacted.value(signingSecret))
    }
    // The first answer itself is untouched.
    assert.isNotNull(created.bearer_token)
  })

  it("does the same on the answer as encoded for the wire", () => {
    const encoded = Schema.encodeSync(Keys.CreatedKey)(created)
    assert.include(JSON.stringify(encoded), Redacted.value(platformSecret))
    const safe = Keys.replaySafe(encoded)
    assert.deepStrictEqual(safe, {
      key_id: created.key_id,
      bearer_token: null,
      signing_secret: null,
      note: Keys.REPLAY_NOTE
    })
    assert.deepStrictEqual(Schema.decodeUnknownSync(Keys.CreatedKey)(safe), Keys.replaySafe(created))
  })
})
