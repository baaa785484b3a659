/**
 * Name folding: one matching key per place name, so that a user's spelling, a courier's and a dataset's compare
 * equal when a person would read them as the same name. They disagree on case, accents, hyphens, apostrophes and
 * spacing (El M'Ghair, El Mghair, el-mghair, BordjBouArreridj), and Arabic comes with or without hamza, vowel marks
 * and tatweel.
 *
 * The key drops every separator rather than collapsing it to one space: "Bordj Bou Arreridj" and
 * "BordjBouArreridj" must meet, and no two communes of one wilaya share a key in the CC0 dataset.
 */

/**
 * The matching key of a name: lower case, no diacritics (é → e, ï → i, â → a), no tashkeel, no hamza (أ إ آ → ا,
 * ؤ → و, ئ → ي), ة → ه, ى → ي, and no spaces, hyphens, apostrophes, tatweel or other punctuation. Not for display.
 */
export const fold = (name: string): string =>
  name
    // NFKD splits accents and hamza/madda off their letter (é → e + ◌́, أ → ا + ◌ٔ) and maps Arabic
    // presentation forms (text copied from PDFs) to plain letters; lower-casing after it keeps `fold` idempotent.
    .normalize("NFKD")
    .toLowerCase()
    .replace(/\p{M}/gu, "")
    // Spellings readers take for one letter that NFKD leaves apart: ٱ → ا, ة → ه, ى → ي.
    .replace(/\u0671/g, "\u0627")
    .replace(/\u0629/g, "\u0647")
    .replace(/\u0649/g, "\u064a")
    // Tatweel and the modifier apostrophe ʼ are letters to Unicode (Lm), so they go with the separators.
    .replace(/[^\p{L}\p{N}]|\p{Lm}/gu, "")
