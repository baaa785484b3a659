/**
 * Vitest's global set-up: builds the app as `npm start` does before it starts (its `prestart` script, run as is), so
 * that the tests which run `npm start`'s command line (`apps/http/test/AppProcess.ts`) run the JavaScript of the
 * sources under test. Incremental: with nothing changed it takes about a second.
 */
import { execFileSync } from "node:child_process"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "..")

export default function setup() {
  execFileSync("npm", ["run", "--silent", "prestart"], { cwd: ROOT, stdio: "inherit" })
}
