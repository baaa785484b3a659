/**
 * The 58 wilayas couriers deliver to, by the French names their APIs take in a wilaya field, in the order of their
 * official codes (1 Adrar … 58 El Meniaa): the spellings of Yalidine's documentation (Adrar, Oum El Bouaghi, Batna,
 * Béjaïa, Tébessa, Alger, Sétif) and of the CC0 wilaya dataset for the others. One list for every adapter and fake
 * that names wilayas (Yalidine's, Colivraison's): a courier that spells one differently says so in its own mapping.
 */
import type { WilayaCode } from "@tawsil/domain"

/** The French name of each wilaya, by official code − 1. */
export const FRENCH: ReadonlyArray<string> = [
  "Adrar",
  "Chlef",
  "Laghouat",
  "Oum El Bouaghi",
  "Batna",
  "Béjaïa",
  "Biskra",
  "Béchar",
  "Blida",
  "Bouira",
  "Tamanrasset",
  "Tébessa",
  "Tlemcen",
  "Tiaret",
  "Tizi Ouzou",
  "Alger",
  "Djelfa",
  "Jijel",
  "Sétif",
  "Saïda",
  "Skikda",
  "Sidi Bel Abbès",
  "Annaba",
  "Guelma",
  "Constantine",
  "Médéa",
  "Mostaganem",
  "M'Sila",
  "Mascara",
  "Ouargla",
  "Oran",
  "El Bayadh",
  "Illizi",
  "Bordj Bou Arréridj",
  "Boumerdès",
  "El Tarf",
  "Tindouf",
  "Tissemsilt",
  "El Oued",
  "Khenchela",
  "Souk Ahras",
  "Tipaza",
  "Mila",
  "Aïn Defla",
  "Naâma",
  "Aïn Témouchent",
  "Ghardaïa",
  "Relizane",
  "Timimoun",
  "Bordj Badji Mokhtar",
  "Ouled Djellal",
  "Béni Abbès",
  "In Salah",
  "In Guezzam",
  "Touggourt",
  "Djanet",
  "El M'Ghair",
  "El Meniaa"
]

/** The French name of wilaya `code` (1 to 58). */
export const frenchOf = (code: WilayaCode.WilayaCode): string => FRENCH[code - 1]!

/** The official code of the wilaya of French name `name` exactly, or `undefined`. */
export const codeOf = (name: string): number | undefined => {
  const index = FRENCH.indexOf(name)
  return index === -1 ? undefined : index + 1
}
