#!/usr/bin/env node
/**
 * `tawsil-new-adapter <platform> --out <dir>`: writes a courier adapter package outside any Tawsil checkout — the
 * manifest, a pure mapping, the status tables, a loopback fake of the courier, the conformance test, tsconfig and
 * README — that passes its conformance test as generated. Plain JavaScript, so it runs from the installed SDK with
 * no build step from the workspace (`node` strips its types) and from `dist/` once packed. The templates are the
 * files under `./template`, bundled into `templates.json` (`Templates.bundle`, kept in step by a test) so that they
 * ship inside `dist/`; `__Name__`-style placeholders are filled in here.
 *
 * Options: `--name <package name>` (default `tawsil-adapter-<platform>`), `--label <courier name>`, and
 * `--sdk <folder>`: a folder of packed SDK tarballs (`tawsil-courier-<version>.tgz`, …) to depend on instead of the
 * registry, for developing against an unpublished SDK.
 */
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { parseArgs } from "node:util"
import templates from "./templates.json" with { type: "json" }

interface Manifest {
  readonly version: string
  readonly peerDependencies: Readonly<Record<string, string>>
}

/** The SDK's package.json, two folders up from `src/scaffold/` and from `dist/scaffold/` alike. */
const SDK_MANIFEST = JSON.parse(
  Fs.readFileSync(Path.join(import.meta.dirname, "../../package.json"), "utf8")
) as Manifest

/** The toolchain the SDK is built and tested with (the repository's root devDependencies; a test keeps them equal). */
export const TOOLCHAIN = { typescript: "7.0.2", vitest: "5.1.1", "@effect/vitest": "4.0.5", "@types/node": "^22" }

const usage = `usage: tawsil-new-adapter <platform> --out <dir> [--name <package>] [--label <courier name>] [--sdk <folder of tarballs>]
  <platform>  the platform key: lowercase letters, digits and _, 2 to 40 characters, starting with a letter`

const fail: (message: string) => never = (message) => {
  console.error(`tawsil-new-adapter: ${message}\n${usage}`)
  process.exit(2)
}

const isVersion = (spec: string | undefined): spec is string => typeof spec === "string" && /^\d+\.\d+\.\d+/.test(spec)

/**
 * What the plugin asks for: the SDK's own minor (`^0.2.0`: a 0.x minor may break, a patch may not; `@tawsil/*`
 * move together), and `effect` in the range the SDK takes it as a peer, so the plugin and the SDK share one copy.
 */
const sdkVersions = () => {
  const own = SDK_MANIFEST.version
  if (!isVersion(own)) fail(`the SDK's version ${JSON.stringify(own)} is not x.y.z`)
  return {
    "@tawsil/courier": `^${own}`,
    "@tawsil/domain": `^${own}`,
    effect: SDK_MANIFEST.peerDependencies.effect ?? fail("the SDK names no effect peer range")
  }
}

/** `@tawsil/<name>` → `file:` spec of each `tawsil-<name>-<version>.tgz` in the folder. */
const tarballs = (folder: string): Record<string, string> => {
  const found: Record<string, string> = {}
  for (const file of Fs.readdirSync(folder)) {
    const match = /^tawsil-(.+)-(\d+\.\d+\.\d+[^/]*)\.tgz$/.exec(file)
    if (match) found[`@tawsil/${match[1]}`] = `file:${Path.join(folder, file)}`
  }
  if (found["@tawsil/courier"] === undefined) fail(`no tawsil-courier-<version>.tgz in ${folder}`)
  return found
}

export const packageJson = ({
  label,
  name,
  platform,
  sdk
}: {
  readonly name: string
  readonly label: string
  readonly platform: string
  readonly sdk: string | undefined
}) => {
  const versions = sdkVersions()
  const local = sdk === undefined ? {} : tarballs(sdk)
  const spec = (dependency: "@tawsil/courier" | "@tawsil/domain") => local[dependency] ?? versions[dependency]
  return {
    name,
    version: "0.1.0",
    description: `Tawsil courier adapter: ${label} (platform ${platform})`,
    type: "module",
    license: "MIT",
    tawsil: { courierAdapter: true },
    exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
    files: ["dist"],
    scripts: {
      build: "tsc -p tsconfig.json",
      typecheck: "tsc -p tsconfig.test.json",
      test: "vitest run",
      prepack: "npm run build"
    },
    dependencies: {
      "@tawsil/courier": spec("@tawsil/courier"),
      "@tawsil/domain": spec("@tawsil/domain")
    },
    // The host that loads the plugin brings effect; npm installs a peer for the plugin's own build and tests.
    peerDependencies: { effect: versions.effect },
    devDependencies: {
      "@effect/vitest": TOOLCHAIN["@effect/vitest"],
      "@types/node": TOOLCHAIN["@types/node"],
      typescript: TOOLCHAIN.typescript,
      vitest: TOOLCHAIN.vitest
    },
    // The SDK's own @tawsil dependencies come from the same tarballs while it is not on the registry.
    ...(Object.keys(local).length === 0 ? {} : { overrides: local })
  }
}

/** Writes the package; returns the files written, relative to `out`. */
export const scaffold = ({
  label,
  name,
  out,
  platform,
  sdk
}: {
  readonly platform: string
  readonly out: string
  readonly name?: string | undefined
  readonly label?: string | undefined
  readonly sdk?: string | undefined
}): ReadonlyArray<string> => {
  if (!/^[a-z][a-z0-9_]{1,39}$/.test(platform)) fail(`${JSON.stringify(platform)} is not a platform key`)
  const Name = platform
    .split("_")
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("")
  const values: Record<string, string> = {
    __Name__: Name,
    __platform__: platform,
    __host__: platform.replaceAll("_", "-"),
    __Label__: label ?? Name,
    __package__: name ?? `tawsil-adapter-${platform.replaceAll("_", "-")}`,
    __PREFIX__: platform.replaceAll("_", "").slice(0, 3).toUpperCase(),
    __CANARY__: randomBytes(6).toString("hex")
  }
  const fill = (text: string) =>
    text.replace(/__(Name|platform|host|Label|package|PREFIX|CANARY)__/g, (key) => values[key] ?? key)
  if (Fs.existsSync(out) && Fs.readdirSync(out).length > 0) fail(`${out} exists and is not empty`)
  const written: Array<string> = []
  const write = (relative: string, text: string) => {
    Fs.mkdirSync(Path.dirname(Path.join(out, relative)), { recursive: true })
    Fs.writeFileSync(Path.join(out, relative), text)
    written.push(relative)
  }
  for (const [path, text] of Object.entries(templates as Readonly<Record<string, string>>)) {
    write(fill(path).replace(/^gitignore$/, ".gitignore"), fill(text))
  }
  const manifest = packageJson({
    name: values.__package__!,
    label: values.__Label__!,
    platform,
    sdk: sdk === undefined ? undefined : Path.resolve(sdk)
  })
  write("package.json", `${JSON.stringify(manifest, null, 2)}\n`)
  return written
}

const main = () => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      out: { type: "string" },
      name: { type: "string" },
      label: { type: "string" },
      sdk: { type: "string" },
      help: { type: "boolean", short: "h" }
    }
  })
  if (values.help) {
    console.log(usage)
    return
  }
  const [platform, ...rest] = positionals
  if (platform === undefined || rest.length > 0) fail("give exactly one platform key")
  if (values.out === undefined) fail("--out <dir> is required")
  const out = Path.resolve(process.env.INIT_CWD ?? process.cwd(), values.out)
  const written = scaffold({
    platform,
    out,
    name: values.name,
    label: values.label,
    sdk: values.sdk === undefined ? undefined : Path.resolve(process.env.INIT_CWD ?? process.cwd(), values.sdk)
  })
  console.log(`wrote ${written.length} files to ${out}:\n  ${[...written].sort().join("\n  ")}
next:
  cd ${out}
  npm install
  npm test          # the conformance kit against the loopback fake
  npm run build     # dist/, what a Tawsil host loads (COURIER_ADAPTERS=${out})`)
}

if (process.argv[1] !== undefined && Fs.realpathSync(process.argv[1]) === Fs.realpathSync(import.meta.filename)) main()
