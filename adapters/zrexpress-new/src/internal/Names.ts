/** A name compared without case, accents, spaces or punctuation (`Bab-Ezzouar` = `bab ezzouar`). */
export const fold = (name: string): string =>
  name
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "")
