import { assert, describe, it } from "@effect/vitest"
import { WilayaCode } from "@tawsil/domain"
import { Wilayas } from "@tawsil/reference"
import { wilayaRows } from "./SharedData.ts"

const codes = (query: string) => Wilayas.search(query).map((wilaya) => wilaya.code)

// [query, codes found, in order]
const searches: ReadonlyArray<readonly [query: string, found: ReadonlyArray<number>]> = [
  // French names, whatever the case, accents or separators.
  ["Alger", [16]],
  ["alger", [16]],
  ["Béjaïa", [6]],
  ["bejaia", [6]],
  ["BordjBouArreridj", [34]],
  ["bordj-bou-arréridj", [34]],
  ["m'sila", [28]],
  ["Msila", [28]],
  // Other spellings, from the table.
  ["Algiers", [16]],
  ["El M'Ghair", [57]],
  ["El Mghair", [57]],
  ["el-mghair", [57]],
  ["El Meghaier", [57]],
  ["El Megaier", [57]],
  ["El Menia", [58]],
  ["El Meniaâ", [58]],
  ["Aïn Salah", [53]],
  ["In Salah", [53]],
  ["Tamenghasset", [11]],
  // Arabic, with and without hamza, tashkeel and article.
  ["الجزائر", [16]],
  ["جزائر", [16]],
  ["الأغواط", [3]],
  ["الاغواط", [3]],
  ["الأَغْوَاط", [3]],
  ["اليزي", [33]],
  ["باتنه", [5]],
  ["عين الدفلي", [44]],
  // Substrings: names starting with the query first, then names containing it, each by code.
  ["Bou", [10, 35, 4, 34]],
  ["ma", [29, 11, 24, 45]],
  ["ain", [44, 46, 53, 54]],
  ["Paris", []],
  // A number is a code.
  ["16", [16]],
  ["016", [16]],
  [" 16 ", [16]],
  ["?16", [16]],
  ["1", [1]],
  ["58", [58]],
  ["0", []],
  ["59", []],
  ["100", []]
]

describe("Wilayas", () => {
  it.each(searches)("search(%j) finds %j", (query, found) => {
    assert.deepStrictEqual(codes(query), found)
  })

  it("finds every wilaya for a blank query", () => {
    assert.strictEqual(Wilayas.search("").length, 58)
    assert.strictEqual(Wilayas.search("  -  ").length, 58)
  })

  it("finds every wilaya by its own names and its code", () => {
    for (const wilaya of Wilayas.all) {
      assert.strictEqual(Wilayas.search(wilaya.name)[0], wilaya, wilaya.name)
      assert.strictEqual(Wilayas.search(wilaya.nameAr)[0], wilaya, wilaya.nameAr)
      assert.deepStrictEqual(Wilayas.search(String(wilaya.code).padStart(2, "0")), [wilaya])
    }
  })

  it("lists the 58 wilayas by code", () => {
    assert.deepStrictEqual(
      Wilayas.all.map((wilaya) => wilaya.code),
      Array.from({ length: 58 }, (_, i) => i + 1)
    )
    assert.strictEqual(Wilayas.byCode(WilayaCode.WilayaCode.make(16)).name, "Alger")
    assert.strictEqual(Wilayas.byCode(WilayaCode.WilayaCode.make(31)).nameAr, "وهران")
  })

  it("agrees with the CC0 dataset on codes, names and Arabic names", () => {
    assert.deepStrictEqual(
      Wilayas.all.map(({ code, name, nameAr }) => ({ code, name, nameAr })),
      wilayaRows().map(({ code, name, nameAr }) => ({ code, name, nameAr }))
    )
  })

  it("finds each wilaya by the dataset's ASCII name", () => {
    for (const row of wilayaRows()) assert.deepStrictEqual(codes(row.nameAscii), [row.code], row.nameAscii)
  })
})
