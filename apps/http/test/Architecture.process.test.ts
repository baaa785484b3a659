/**
 * The map's rules that the compiler does not check (docs/architecture.md "Rules"): what plugin authors and embedders
 * read — everything under `packages/*` and `adapters/*` — serves no HTTP and names no HTTP status; the courier
 * transport is the one place that speaks HTTP, as a client; only `packages/storage` names the PostgreSQL driver.
 * `packages/api` is the one exception to the first rule: it holds the HttpApi definitions of both APIs (what the
 * servers and the typed clients are built from), so it imports `effect/http-api` and names statuses — and still
 * serves nothing (no server part of `effect/http` beyond the router's path type, no platform, no app); and
 * `packages/client` may import `HttpApiClient` from it, the client side only.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "@effect/vitest"

const ROOT = Path.resolve(import.meta.dirname, "../../..")

const sourcesOf = (folder: string): ReadonlyArray<string> =>
  Fs.readdirSync(Path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = Path.join(folder, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sourcesOf(relative)
    return entry.name.endsWith(".ts") ? [relative] : []
  })

/** Every source file of the packages and adapters (not their tests: a test may start a server to fake a courier). */
const domainSources = ["packages", "adapters"].flatMap((top) =>
  Fs.readdirSync(Path.join(ROOT, top)).flatMap((name) =>
    Fs.existsSync(Path.join(ROOT, top, name, "src")) ? sourcesOf(Path.join(top, name, "src")) : []
  )
)

/** The wire definitions: `effect/http-api` and HTTP statuses, no server. */
const WIRE = Path.join("packages", "api", "src")
const isWire = (file: string) => file.startsWith(WIRE + Path.sep)
/**
 * The typed clients: `HttpApiClient` of `effect/http-api`, the definitions it reads (`HttpApi`) and their types,
 * nothing that serves.
 */
const CLIENT = Path.join("packages", "client", "src")
const CLIENT_NAMES = new Set(["", "HttpApiClient", "HttpApi"])
const onlyHttpApiClient = (file: string, text: string) =>
  file.startsWith(CLIENT + Path.sep) &&
  [...text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+["']effect\/http-api["']/g)].every(
    (match) =>
      match[1] !== undefined ||
      match[2]!.split(",").every((name) => /^\s*type\s/.test(name) || CLIENT_NAMES.has(name.trim()))
  )

const importsOf = (file: string) =>
  [...Fs.readFileSync(Path.join(ROOT, file), "utf8").matchAll(/(?:import|export)[^"']*?from\s+["']([^"']+)["']/g)].map(
    (match) => match[1]!
  )

/** What `effect/http` offers a client; the rest of it (servers, routers, server requests and responses) serves. */
const HTTP_CLIENT_NAMES = new Set([
  "HttpClient",
  "HttpClientRequest",
  "HttpClientResponse",
  "HttpClientError",
  "HttpBody",
  "Headers",
  "UrlParams"
])

describe("architecture", () => {
  it("finds the sources it checks", () => {
    expect(domainSources.length).toBeGreaterThan(50)
    expect(domainSources).toContain(Path.join("packages", "shipping", "src", "HttpTransport.ts"))
  })

  it("keeps the HTTP server side, the Node platform and the apps out of packages and adapters", () => {
    const offences: Array<string> = []
    for (const file of domainSources) {
      const text = Fs.readFileSync(Path.join(ROOT, file), "utf8")
      for (const specifier of importsOf(file)) {
        if (
          (specifier === "effect/http-api" && !isWire(file) && !onlyHttpApiClient(file, text)) ||
          specifier.startsWith("@effect/platform-node") ||
          specifier.startsWith("@tawsil/http") ||
          specifier.startsWith("@tawsil/bench") ||
          /(^|\/)apps\//.test(specifier)
        ) {
          offences.push(`${file} imports ${specifier}`)
        }
      }
      for (const match of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+["']effect\/http["']/g)) {
        for (const name of match[1]!.split(",").map((part) => part.replace(/^\s*type\s+/, "").trim())) {
          if (isWire(file) && name === "HttpRouter" && /import\s+type\s/.test(match[0])) continue
          if (name !== "" && !HTTP_CLIENT_NAMES.has(name)) offences.push(`${file} imports ${name} from effect/http`)
        }
      }
    }
    expect(offences).toEqual([])
  })

  it("lets only the courier transport, the webhook client (and their address rules), and the egress guard use Node's network modules", () => {
    const allowed: Record<string, ReadonlyArray<string>> = {
      [Path.join("packages", "shipping", "src", "HttpTransport.ts")]: ["node:http", "node:https", "node:net"],
      [Path.join("packages", "egress", "src", "Egress.ts")]: ["node:dns", "node:net"],
      // The process egress guard patches the network modules' entry points to refuse what the core did not permit.
      [Path.join("packages", "egress", "src", "ProcessEgress.ts")]: ["node:dgram", "node:dns", "node:net"],
      // The conformance kit's test tooling, never a host's: the skeleton of a fake courier (a loopback server), the
      // loopback transport to it and a pushing courier's loopback receiver, and the observer of every HTTP request
      // the process starts (the request's type only).
      [Path.join("packages", "courier", "src", "testing", "FakeCourier.ts")]: ["node:http", "node:net"],
      [Path.join("packages", "courier", "src", "testing", "LoopbackHttp.ts")]: ["node:http", "node:net"],
      [Path.join("packages", "courier", "src", "testing", "internal", "Observers.ts")]: ["node:http"],
      // The data directory's lock is a local socket only one process can hold.
      [Path.join("packages", "storage", "src", "DataDirLock.ts")]: ["node:net"],
      // Webhook deliveries: the one client that posts to a subscriber, pinned to the address the URL rules checked.
      [Path.join("packages", "webhooks", "src", "WebhookHttp.ts")]: ["node:http", "node:https", "node:net"],
      // The webhook URL rules tell IP literals from names (`isIP`); they open nothing.
      [Path.join("packages", "webhooks", "src", "WebhookUrl.ts")]: ["node:net"]
    }
    const offences = domainSources.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => /^node:(http|https|http2|net|tls|dns|dgram)(\/|$)/.test(specifier))
        .filter((specifier) => !(allowed[file] ?? []).includes(specifier))
        .map((specifier) => `${file} imports ${specifier}`)
    )
    expect(offences).toEqual([])
  })

  it("names the PostgreSQL driver in packages/storage only", () => {
    const offences = domainSources
      .filter((file) => !file.startsWith(Path.join("packages", "storage")))
      .flatMap((file) =>
        importsOf(file)
          .filter((specifier) => specifier.startsWith("@effect/sql-pg") || specifier.startsWith("@electric-sql"))
          .map((specifier) => `${file} imports ${specifier}`)
      )
    expect(offences).toEqual([])
  })

  it("attaches no HTTP status to an error in packages and adapters", () => {
    const offences = domainSources.filter(
      (file) =>
        !isWire(file) &&
        /httpApiStatus|HttpApiSchema\.status|readonly status = [1-5][0-9][0-9]/.test(
          Fs.readFileSync(Path.join(ROOT, file), "utf8")
        )
    )
    expect(offences).toEqual([])
  })

  /**
   * Whoever installs a client installs the contract, the domain's schemas and effect: nothing that serves or stores.
   * Read from the manifests (what npm installs: dependencies and required peers, transitively) and from a real load
   * of the clients in a process where resolving any of these packages throws.
   */
  const SERVES =
    /^(@tawsil\/(shipping|storage|http|bench|adapter-.*)|@effect\/(platform-node|sql-pg)|@electric-sql\/.*)$/

  it("the contract and the Effect clients install nothing that serves: no shipping host, storage or adapter", () => {
    const manifests = new Map(
      ["packages", "adapters", "apps"].flatMap((top) =>
        Fs.readdirSync(Path.join(ROOT, top))
          .filter((name) => Fs.existsSync(Path.join(ROOT, top, name, "package.json")))
          .map((name) => {
            const manifest = JSON.parse(Fs.readFileSync(Path.join(ROOT, top, name, "package.json"), "utf8"))
            return [manifest.name as string, manifest] as const
          })
      )
    )
    const installed = (name: string, seen = new Set<string>()): ReadonlySet<string> => {
      if (seen.has(name)) return seen
      seen.add(name)
      const manifest = manifests.get(name)
      const optional = manifest?.peerDependenciesMeta ?? {}
      const required = [
        ...Object.keys(manifest?.dependencies ?? {}),
        ...Object.keys(manifest?.peerDependencies ?? {}).filter((peer) => optional[peer]?.optional !== true)
      ]
      for (const dependency of required) installed(dependency, seen)
      return seen
    }
    for (const root of ["@tawsil/api", "@tawsil/client"]) {
      expect([...installed(root)].filter((name) => SERVES.test(name))).toEqual([])
    }
  })

  it("the Effect clients load without the shipping host, storage or an adapter", () => {
    const script = `
      import { registerHooks } from "node:module"
      registerHooks({
        resolve(specifier, context, next) {
          if (${SERVES}.test(specifier)) throw new Error("loaded " + specifier)
          return next(specifier, context)
        }
      })
      for (const entry of ["@tawsil/api", "@tawsil/client/shipping", "@tawsil/client/store"]) await import(entry)
      console.log("loaded")`
    const output = execFileSync(
      process.execPath,
      ["--conditions=@tawsil/source", "--input-type=module", "-e", script],
      { cwd: Path.join(ROOT, "packages", "client"), encoding: "utf8" }
    )
    expect(output.trim()).toBe("loaded")
  })
})
