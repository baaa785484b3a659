import { assert, describe, it } from "@effect/vitest"
import { WilayaCode } from "@tawsil/domain"
import { Effect, Schema } from "effect"
import * as fc from "fast-check"
import { CommuneResolver, Communes } from "../src/index.ts"
import { misspellings, prefixAmbiguous, unresolvable } from "./fixtures/misspellings.ts"

const communes = await Effect.runPromise(Communes.loadBundled)
const resolver = CommuneResolver.make(communes)
const code = Schema.decodeUnknownSync(WilayaCode.WilayaCode)

describe("CommuneResolver", () => {
  it("resolves at least 95 % of the misspellings corpus to the commune meant, and never picks a wrong one", () => {
    const wilayas = new Set(misspellings.map(([wilaya]) => wilaya))
    assert.isAtLeast(misspellings.length, 60)
    assert.isAtLeast(wilayas.size, 10)
    assert.isAtLeast(misspellings.filter(([, typed]) => /[\u0600-\u06ff]/.test(typed)).length, 15)
    const misses: Array<string> = []
    for (const [wilaya, typed, meant] of misspellings) {
      const resolution = resolver.resolve(wilaya, typed)
      if (resolution._tag === "Matched") {
        // A confident answer is the right one: a guess that is wrong is worse than a suggestion.
        assert.strictEqual(resolution.commune.name, meant, `${typed} (${wilaya})`)
        assert.strictEqual(resolution.commune.wilayaCode, wilaya)
      } else {
        misses.push(typed)
        // What is not resolved is at least suggested.
        assert.include(
          resolution.suggestions.map((candidate) => candidate.commune.name),
          meant,
          `${typed} (${wilaya}) suggests ${meant}`
        )
      }
    }
    const rate = (misspellings.length - misses.length) / misspellings.length
    assert.isAtLeast(rate, 0.95, `unresolved: ${misses.join(", ")}`)
  })

  it("answers suggestions, never a guess, for names that match no commune clearly", () => {
    for (const [wilaya, typed] of unresolvable) {
      const resolution = resolver.resolve(wilaya, typed)
      assert.notStrictEqual(resolution._tag, "Matched", typed)
    }
    const ambiguous = resolver.resolve(19, "Beni")
    assert.strictEqual(ambiguous._tag, "Ambiguous")
    if (ambiguous._tag === "Ambiguous") {
      assert.isAtMost(ambiguous.suggestions.length, CommuneResolver.MAX_SUGGESTIONS)
      assert.isTrue(ambiguous.suggestions.every((candidate) => candidate.commune.name.startsWith("Beni")))
    }
  })

  it("answers a name that begins several communes' names as ambiguous, suggesting each, never one of them", () => {
    for (const [wilaya, typed, begun] of prefixAmbiguous) {
      const resolution = resolver.resolve(wilaya, typed)
      assert.strictEqual(resolution._tag, "Ambiguous", `${typed} (${wilaya})`)
      const suggested = resolution._tag === "Matched" ? [] : resolution.suggestions.map((c) => c.commune.name)
      for (const name of begun) assert.include(suggested, name, `${typed} (${wilaya}) suggests ${name}`)
    }
    // Bir sounds closest to El Biar, which it does not begin: suggested beside the three it begins, not answered.
    const bir = resolver.resolve(16, "Bir")
    assert.include(bir._tag === "Matched" ? [] : bir.suggestions.map((c) => c.commune.name), "El Biar")
    // A name that begins only one commune's is a truncated name (four letters or more), or a suggestion (three).
    const birk = resolver.resolve(16, "Birk")
    assert.isTrue(birk._tag === "Matched" && birk.commune.name === "Birkhadem" && !birk.exact)
    const babEz = resolver.resolve(16, "Bab Ez")
    assert.isTrue(babEz._tag === "Matched" && babEz.commune.name === "Bab Ezzouar")
    const dar = resolver.resolve(16, "Dar")
    assert.isTrue(dar._tag === "Unknown" && dar.suggestions[0]?.commune.name === "Dar El Beida")
  })

  it("resolves every dataset name, French and Arabic, to itself exactly", () => {
    for (const commune of communes) {
      for (const name of [commune.name, commune.nameAr]) {
        const resolution = resolver.resolve(commune.wilayaCode, name)
        assert.isTrue(resolution._tag === "Matched" && resolution.commune === commune && resolution.exact, name)
      }
    }
  })

  it("never answers or suggests a commune of another wilaya, whatever is typed", () => {
    const names = communes.map((commune) => commune.name)
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 58 }),
        fc.oneof(fc.string({ unit: "binary", maxLength: 80 }), fc.constantFrom(...names)),
        (wilaya, typed) => {
          const resolution = resolver.resolve(wilaya, typed)
          const found =
            resolution._tag === "Matched" ? [resolution.commune] : resolution.suggestions.map((c) => c.commune)
          return found.every((commune) => commune.wilayaCode === wilaya)
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("gives sound keys with and without the article", () => {
    assert.deepStrictEqual(CommuneResolver.soundKeys("Bordj El Kiffan"), ["borjelkifan", "borjkifan"])
    assert.deepStrictEqual(CommuneResolver.soundKeys("Bachdjarrah"), ["bachjara"])
    assert.deepStrictEqual(CommuneResolver.soundKeys("برج الكيفان"), ["برجالكيفان", "برجكيفان"])
    assert.deepStrictEqual(CommuneResolver.soundKeys(" - '"), [])
  })
})

describe("Communes.search and resolve", () => {
  const service = Communes.make(communes)

  it.effect("search lists the communes that sound like the query when no name contains it", () =>
    Effect.gen(function* () {
      const kiffan = yield* service.search({ wilaya: code(16), q: "bordj el kifan" })
      assert.strictEqual(kiffan[0]?.name, "Bordj El Kiffan")
      const harrach = yield* service.search({ wilaya: code(16), q: "harache" })
      assert.strictEqual(harrach[0]?.name, "El Harrach")
      const bab = yield* service.search({ wilaya: code(16), q: "bab" })
      assert.deepStrictEqual(
        bab.slice(0, 3).map((commune) => commune.name),
        ["Bab El Oued", "Bab Ezzouar", "Baba Hassen"]
      )
    })
  )

  it.effect("resolve answers the service's resolution", () =>
    Effect.gen(function* () {
      const resolution = yield* service.resolve(code(31), "Essenia")
      assert.isTrue(resolution._tag === "Matched" && resolution.commune.name === "Es Senia")
    })
  )
})
