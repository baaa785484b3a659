/**
 * Vitest's global set-up: builds the app as `npm start` does before it starts (`prestart`, `tsc -b
 * tsconfig.app.json`), so that the tests which run `npm start`'s command line (`apps/http/test/AppProcess.ts`) run
 * the JavaScript of the sources under test. Incremental: with nothing changed it takes under a second.
 */
import { execFileSync } from "node:child_process"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "..")

export default function setup() {
  const tsc = Path.join(ROOT, "node_modules/typescript/bin/tsc")
  execFileSync(process.execPath, [tsc, "-b", "tsconfig.app.json"], { cwd: ROOT, stdio: "inherit" })
}
