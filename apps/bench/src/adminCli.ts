/** The admin CLI as operators run it (`npm run admin`), straight on a database: its one JSON line. */
import { execFileSync } from "node:child_process"
import * as Path from "node:path"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

export const admin = (databaseUrl: string, ...args: ReadonlyArray<string>) => {
  const out = execFileSync(
    process.execPath,
    ["--conditions=@tawsil/source", Path.join(ROOT, "apps/http/src/admin/main.ts"), ...args],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? "", DATABASE_URL: databaseUrl }, encoding: "utf8" }
  )
  // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON is read field by field
  return JSON.parse(out.trim().split("\n").at(-1)!) as any
}
