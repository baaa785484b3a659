/**
 * The 58 wilayas of the division in force since 2021 (codes 1 to 58, the range every courier API accepts), authored
 * here with their French and Arabic names, and the lookup behind the wilaya reference endpoint.
 *
 * The names are those of the CC0 dzship dataset. Other spellings that couriers and users write are kept beside
 * them for search only; spellings that differ by accents, case or punctuation alone need no entry, `fold` meets
 * them.
 */
import { WilayaCode } from "@tawsil/domain"
import { Schema } from "effect"
import { rank } from "./internal/rank.ts"
import { fold } from "./NameFolding.ts"

export class Wilaya extends Schema.Class<Wilaya>("@tawsil/reference/Wilaya")({
  code: WilayaCode.WilayaCode,
  /** The French (Latin-script) name. */
  name: Schema.String,
  nameAr: Schema.String
}) {}

const table: ReadonlyArray<readonly [code: number, name: string, nameAr: string, aliases?: ReadonlyArray<string>]> = [
  [1, "Adrar", "أدرار"],
  [2, "Chlef", "الشلف"],
  [3, "Laghouat", "الأغواط"],
  [4, "Oum El Bouaghi", "أم البواقي"],
  [5, "Batna", "باتنة"],
  [6, "Béjaïa", "بجاية"],
  [7, "Biskra", "بسكرة"],
  [8, "Béchar", "بشار"],
  [9, "Blida", "البليدة"],
  [10, "Bouira", "البويرة"],
  [11, "Tamanrasset", "تمنراست", ["Tamenghasset", "Tamanghasset"]],
  [12, "Tébessa", "تبسة"],
  [13, "Tlemcen", "تلمسان"],
  [14, "Tiaret", "تيارت"],
  [15, "Tizi Ouzou", "تيزي وزو"],
  [16, "Alger", "الجزائر", ["Algiers"]],
  [17, "Djelfa", "الجلفة"],
  [18, "Jijel", "جيجل"],
  [19, "Sétif", "سطيف"],
  [20, "Saïda", "سعيدة"],
  [21, "Skikda", "سكيكدة"],
  [22, "Sidi Bel Abbès", "سيدي بلعباس"],
  [23, "Annaba", "عنابة"],
  [24, "Guelma", "قالمة"],
  [25, "Constantine", "قسنطينة"],
  [26, "Médéa", "المدية"],
  [27, "Mostaganem", "مستغانم"],
  [28, "M'Sila", "المسيلة"],
  [29, "Mascara", "معسكر"],
  [30, "Ouargla", "ورقلة"],
  [31, "Oran", "وهران"],
  [32, "El Bayadh", "البيض"],
  [33, "Illizi", "إليزي"],
  [34, "Bordj Bou Arréridj", "برج بوعريريج"],
  [35, "Boumerdès", "بومرداس"],
  [36, "El Tarf", "الطارف"],
  [37, "Tindouf", "تندوف"],
  [38, "Tissemsilt", "تيسمسيلت"],
  [39, "El Oued", "الوادي"],
  [40, "Khenchela", "خنشلة"],
  [41, "Souk Ahras", "سوق أهراس"],
  [42, "Tipaza", "تيبازة"],
  [43, "Mila", "ميلة"],
  [44, "Aïn Defla", "عين الدفلى"],
  [45, "Naâma", "النعامة"],
  [46, "Aïn Témouchent", "عين تموشنت"],
  [47, "Ghardaïa", "غرداية"],
  [48, "Relizane", "غليزان"],
  [49, "Timimoun", "تيميمون"],
  [50, "Bordj Badji Mokhtar", "برج باجي مختار"],
  [51, "Ouled Djellal", "أولاد جلال"],
  [52, "Béni Abbès", "بني عباس"],
  [53, "In Salah", "عين صالح", ["Aïn Salah"]],
  [54, "In Guezzam", "عين قزام", ["Aïn Guezzam"]],
  [55, "Touggourt", "تقرت"],
  [56, "Djanet", "جانت"],
  [57, "El M'Ghair", "المغير", ["El Meghaier", "El Megaier"]],
  [58, "El Meniaa", "المنيعة", ["El Menia"]]
]

const entries = table.map(([code, name, nameAr, aliases = []]) => ({
  wilaya: new Wilaya({ code: WilayaCode.WilayaCode.make(code), name, nameAr }),
  keys: [name, nameAr, ...aliases].map(fold)
}))

/** The 58 wilayas, by code. */
export const all: ReadonlyArray<Wilaya> = entries.map((entry) => entry.wilaya)

export const byCode = (code: WilayaCode.WilayaCode): Wilaya => all[code - 1]!

const isWilayaCode = Schema.is(WilayaCode.WilayaCode)

/**
 * The wilayas a user's query names, best first. A query that is only a number ("16", "016", and also "?16", the
 * shorthand typed in search boxes) is a code: it finds that wilaya or nothing. Otherwise the folded query is
 * looked for in the folded French and Arabic names and the other spellings: exact matches first, then names that
 * start with it, then names that contain it, each group by code. A blank query finds every wilaya.
 */
export const search = (query: string): ReadonlyArray<Wilaya> => {
  const trimmed = query.trim()
  const digits = /^\??\s*(\d+)$/.exec(trimmed)?.[1]
  if (digits !== undefined) {
    const code = Number(digits)
    return isWilayaCode(code) ? [byCode(code)] : []
  }
  const key = fold(trimmed)
  return key === "" ? all : rank(entries, (entry) => entry.keys, key).map((entry) => entry.wilaya)
}
