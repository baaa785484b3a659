/**
 * The scaffold's templates, bundled: every file under `./template` (a readable tree, `.tmpl` suffixed so no tool
 * takes it for code) as one JSON object of path → text, `templates.json`, which `tsc` copies into `dist/` with the
 * bin that imports it. Run `npm run scaffold:templates` after editing a template; a test fails while the bundle is stale.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

export const TEMPLATE_DIR = Path.join(import.meta.dirname, "template")
export const BUNDLE = Path.join(import.meta.dirname, "templates.json")

const walk = (dir: string): ReadonlyArray<string> =>
  Fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? walk(Path.join(dir, entry.name)) : [Path.join(dir, entry.name)]))
    .sort()

/** Template path (relative, `/`-separated, without `.tmpl`) → its text. */
export const bundle = (dir: string = TEMPLATE_DIR): Readonly<Record<string, string>> =>
  Object.fromEntries(
    walk(dir).map((file) => [
      Path.relative(dir, file)
        .split(Path.sep)
        .join("/")
        .replace(/\.tmpl$/, ""),
      Fs.readFileSync(file, "utf8")
    ])
  )

export const text = (): string => `${JSON.stringify(bundle(), null, 2)}\n`

if (process.argv[1] !== undefined && Fs.realpathSync(process.argv[1]) === Fs.realpathSync(import.meta.filename)) {
  Fs.writeFileSync(BUNDLE, text())
}
