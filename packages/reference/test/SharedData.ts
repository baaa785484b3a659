/**
 * The CC0 reference files kept outside the repository (in the workspace's shared folder), read at test time only:
 * the project never carries a copy of the dataset.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

export const sharedFile = (name: string): string =>
  Path.resolve(import.meta.dirname, "../../../../shared/data/reference", name)

export interface WilayaRow {
  readonly code: number
  readonly name: string
  readonly nameAr: string
  readonly nameAscii: string
  readonly communeCount: number
}

export interface CommuneRow {
  readonly wilayaCode: number
  readonly name: string
  readonly nameAr: string
}

const readJson = (name: string): unknown => JSON.parse(Fs.readFileSync(sharedFile(name), "utf8"))

export const wilayaRows = (): ReadonlyArray<WilayaRow> => readJson("wilayas.json") as ReadonlyArray<WilayaRow>
export const communeRows = (): ReadonlyArray<CommuneRow> => readJson("communes.json") as ReadonlyArray<CommuneRow>
