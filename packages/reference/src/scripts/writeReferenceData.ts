/**
 * `npm run data:reference -- <dataset folder> [output folder]`: writes this package's data files from the public
 * CC0 dataset of DZBuild-com/dzship, the folder holding its `wilayas.json` and `communes.json` (a clone's `data/`,
 * or the two files downloaded). The output folder defaults to this package's `src/data`. A plain Node script with
 * no network: it reads two files, checks them (`ReferenceData.generate`), and writes two, each atomically.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { Result } from "effect"
import { generate } from "../ReferenceData.ts"

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`)
  process.exit(1)
}

// npm runs scripts from the repository root; a relative path means the folder the command was typed in.
const from = (path: string) => Path.resolve(process.env.INIT_CWD ?? process.cwd(), path)

const [source, output] = process.argv.slice(2)
if (source === undefined) fail("usage: npm run data:reference -- <dzship data folder> [output folder]")
const sourceDir = from(source!)
const target = output === undefined ? Path.resolve(import.meta.dirname, "../data") : from(output)

const read = (name: string): unknown => {
  const file = Path.join(sourceDir, name)
  const text = Fs.existsSync(file) ? Fs.readFileSync(file, "utf8") : fail(`No ${name} in ${sourceDir}`)
  const parsed = Result.try(() => JSON.parse(text) as unknown)
  return Result.isSuccess(parsed) ? parsed.success : fail(`${file} is not JSON`)
}

const files = generate({ wilayas: read("wilayas.json"), communes: read("communes.json") })
if (Result.isFailure(files)) fail(`The dataset is not usable:\n- ${files.failure.join("\n- ")}`)
const { wilayas, communes } = Result.getOrThrow(files)

Fs.mkdirSync(target, { recursive: true })
for (const [name, text] of [
  ["wilayas.json", wilayas],
  ["communes.json", communes]
] as const) {
  // Written beside the target and renamed, so a reader never sees half a file.
  const file = Path.join(target, name)
  Fs.writeFileSync(`${file}.tmp`, text)
  Fs.renameSync(`${file}.tmp`, file)
  process.stdout.write(`wrote ${file}\n`)
}
