/** Reference data for Algeria: the 58 wilayas, the communes of a CC0 dataset file, and name folding for matching. */
export * as Communes from "./Communes.ts"
export * as NameFolding from "./NameFolding.ts"
export * as Wilayas from "./Wilayas.ts"
