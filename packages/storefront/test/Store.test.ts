import { assert, describe, it } from "@effect/vitest"
import { publicUrl } from "../src/Store.ts"

describe("Store", () => {
  it("public_url: the verified custom domain, else the subdomain, else null", () => {
    const url = (subdomain: string | null, custom_domain: string | null, custom_domain_verified: boolean) =>
      publicUrl({ subdomain, custom_domain, custom_domain_verified })
    assert.strictEqual(url("kabylie", "boutique.example.dz", true), "https://boutique.example.dz")
    assert.strictEqual(url("amina", "amina.example.dz", false), "https://amina.tawsil.store")
    assert.strictEqual(url(null, null, false), null)
    assert.strictEqual(url(null, "pending.example.dz", false), null)
  })
})
