/**
 * Reference data for Algeria, shipped with the package: the wilayas (the 58 couriers deliver to, and the 11 of the
 * 2026 division), the communes of the CC0 dataset, name folding for matching, and the generator of the data files.
 */
export * as CommuneResolver from "./CommuneResolver.ts"
export * as Communes from "./Communes.ts"
export * as NameFolding from "./NameFolding.ts"
export * as ReferenceData from "./ReferenceData.ts"
export * as Wilayas from "./Wilayas.ts"
