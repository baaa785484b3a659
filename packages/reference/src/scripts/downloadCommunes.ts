/**
 * Downloads the public CC0 communes dataset (DZBuild-com/dzship, `data/communes.json`), checks it with
 * `Communes.parse`, and writes it, unchanged, where `COMMUNES_FILE` will point. A plain Node script, run once by
 * whoever installs the service:
 *
 *   node --conditions=@tawsil/source packages/reference/src/scripts/downloadCommunes.ts <file> [url]
 */
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { Result } from "effect"
import { formatIssues, parse } from "../Communes.ts"

const DATASET_URL = "https://raw.githubusercontent.com/DZBuild-com/dzship/main/data/communes.json"

function fail(message: string): never {
  console.error(message)
  process.exit(1)
}

const [target, url = DATASET_URL] = process.argv.slice(2)
if (target === undefined) fail("usage: downloadCommunes.ts <file> [url]")
const file = Path.resolve(target)

const response = await fetch(url).catch((cause: unknown) => fail(`GET ${url} failed: ${String(cause)}`))
if (!response.ok) fail(`GET ${url} answered ${response.status} ${response.statusText}`)
const text = await response.text()

let json: unknown
try {
  json = JSON.parse(text)
} catch {
  fail(`${url} is not JSON`)
}
const communes = parse(json)
if (Result.isFailure(communes)) fail(`${url} is not a communes dataset: ${formatIssues(communes.failure, 20)}`)

// Write beside the target and rename, so a reader never sees half a file.
await Fs.mkdir(Path.dirname(file), { recursive: true })
await Fs.writeFile(`${file}.tmp`, text)
await Fs.rename(`${file}.tmp`, file)
console.log(`Wrote ${communes.success.length} communes to ${file}. Start the service with COMMUNES_FILE=${file}`)
