/**
 * The process-wide egress guard: once installed, every outgoing connection and every name lookup the process makes
 * is refused unless it is on the static allow-list (the database, Redis) or made under a permit the core gives its
 * own socket opening (`permit`: the courier transport for a checked courier request, the webhook client for a checked
 * subscriber, the conformance kit's loopback transport for a fake courier). It holds against plugin
 * code that ignores `CourierHttp` and calls `fetch`, `http`/`https`, `net`, `tls`, `dns`, undici or `dgram`
 * itself, at import time or in an operation: they all end in `net.Socket.prototype.connect`, `dns` or
 * `dgram.Socket.prototype.send`, which are the three things patched here.
 *
 * A refused connection fails like a refused TCP connection (`EgressRefused`, code `ECONNREFUSED`) before any byte
 * leaves; a refused lookup fails like a name that does not resolve. Every refusal is counted and kept (host, port,
 * kind: never a path, query string or credential), and the first one to each destination is reported once.
 *
 * This is a guard inside one process, not a sandbox: code in the same process can undo it. docs/egress-guard.md
 * states the trust model.
 */
import * as Dgram from "node:dgram"
import type * as DnsModule from "node:dns"
import { createRequire, syncBuiltinESMExports } from "node:module"
import * as Net from "node:net"

// The module object itself (an ES namespace is read-only): what `require("node:dns")` and net's own lookups use.
const Dns = createRequire(import.meta.url)("node:dns") as typeof DnsModule

/** A place the process may reach: a TCP `host` and `port`, or a unix socket `path`. */
export type Destination = { readonly host: string; readonly port: number } | { readonly path: string }

/**
 * One refused attempt. `port` is absent for a name lookup. `host` is an IP address, or a name shortened to its last
 * two labels (`*.example.com`), or `unix socket`: never more of what the caller chose (see `shown`).
 */
export interface Attempt {
  readonly kind: "connect" | "lookup" | "udp"
  readonly host: string
  readonly port?: number | undefined
}

/**
 * What a refused connection fails with. A plain Node error (not a tagged error) because it travels through Node's
 * socket machinery to whatever client made the call, which knows `ECONNREFUSED`.
 */
export class EgressRefused extends Error {
  readonly code = "ECONNREFUSED"
  readonly attempt: Attempt
  constructor(attempt: Attempt) {
    super(`egress refused: ${describe(attempt)} is not an allowed destination`)
    this.name = "EgressRefused"
    this.attempt = attempt
  }
}

/** `host:port`, `host` (a lookup) or `udp host:port`: how an attempt is named in logs and test messages. */
export const describe = (attempt: Attempt): string =>
  `${attempt.kind === "udp" ? "udp " : attempt.kind === "lookup" ? "lookup " : ""}${attempt.host}${
    attempt.port === undefined ? "" : `:${attempt.port}`
  }`

export interface Options {
  /** Always reachable: the database, Redis. Their host names may be looked up too. */
  readonly allow?: ReadonlyArray<Destination> | undefined
  /** More names that may be looked up (the host the servers listen on). IP literals always may. */
  readonly lookups?: ReadonlyArray<string> | undefined
  /** Told of the first refused attempt to each destination, with the number refused so far. */
  readonly report?: ((attempt: Attempt, refused: number) => void) | undefined
}

interface Permit {
  readonly host: string
  readonly port: number | undefined
}

interface Installed {
  readonly connects: Set<string>
  readonly paths: Set<string>
  readonly lookups: Set<string>
  report: ((attempt: Attempt, refused: number) => void) | undefined
  readonly restore: () => void
}

// The permit of the `permit` call running now, if any.
let current: Permit | undefined
let installed: Installed | undefined
const refusals: Array<Attempt> = []
// The first refusal to each destination, with the count at that moment: reported once, or replayed to a reporter
// set later (refusals at import time come before the app's logger exists).
const firsts = new Map<string, { readonly attempt: Attempt; readonly refused: number }>()
// Inside a permitted connect, net looks the name up synchronously with `dns.lookup`: that lookup is part of it.
let connecting = 0

const hostKey = (host: string) => {
  const lower = host.toLowerCase()
  return lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower
}
const connectKey = (host: string, port: number) => `${hostKey(host)}:${port}`

/** Whether the guard is installed in this process. */
export const isInstalled = (): boolean => installed !== undefined

/** Every attempt refused since the process started, oldest first. */
export const attempts = (): ReadonlyArray<Attempt> => refusals

/** How many attempts were refused since the process started. */
export const refused = (): number => refusals.length

/**
 * Sets who is told of refusals (the app's logger, once it runs). It is told at once of the first refusal to each
 * destination so far, then of each new destination as it is refused.
 */
export const setReport = (report: ((attempt: Attempt, refused: number) => void) | undefined): void => {
  if (installed === undefined) return
  installed.report = report
  for (const { attempt, refused } of firsts.values()) tell(attempt, refused)
}

const tell = (attempt: Attempt, refused: number) => {
  try {
    installed?.report?.(attempt, refused)
  } catch {
    // A reporter that throws must not turn a refusal into a crash of the caller's socket code.
  }
}

/**
 * Runs `open` with a permit to connect to exactly `destination` (or, without a port, to look up its name). The
 * permit holds only while `open` runs: it must open the socket (or start the lookup) synchronously, as
 * `http.request`, `tls.connect` and `dns.promises.lookup` do. Nothing that runs later — a response callback, an
 * adapter's code resumed after it — holds it. (A plain variable, not an `AsyncLocalStorage`: nothing needs the permit
 * to travel, and on Node 22 an `AsyncLocalStorage` would turn on async hooks for every promise of the process.)
 */
export const permit = <A>(
  destination: { readonly host: string; readonly port?: number | undefined },
  open: () => A
): A => {
  const previous = current
  current = { host: hostKey(destination.host), port: destination.port }
  try {
    return open()
  } finally {
    current = previous
  }
}

const permitted = (host: string, port: number | undefined) => {
  const grant = current
  return (
    grant !== undefined &&
    grant.host === hostKey(host) &&
    // A connection needs a permit for its port; a lookup needs one for the name, whatever its port.
    (port === undefined || grant.port === port)
  )
}

/**
 * A refused name as it is kept and logged: its last two labels, the rest starred. The name is the plugin's to
 * choose, so it could carry a secret (`<key>.attacker.example`, the usual DNS exfiltration form); this keeps at
 * most one label of it. IP literals are kept whole; a unix socket path is not kept at all.
 */
const shown = (host: string): string => {
  if (Net.isIP(host) !== 0) return host
  const labels = host.split(".").map((label) => label.slice(0, 63))
  return labels.length > 2 ? `*.${labels.slice(-2).join(".")}` : labels.join(".")
}

const refuse = (refusal: Attempt): EgressRefused => {
  const attempt: Attempt = { ...refusal, host: shown(refusal.host) }
  refusals.push(attempt)
  const key = describe(attempt)
  if (!firsts.has(key)) {
    firsts.set(key, { attempt, refused: refusals.length })
    tell(attempt, refusals.length)
  }
  return new EgressRefused(attempt)
}

/** Where a `Socket#connect(...)` call goes, from any of its argument forms (net normalises them into an array). */
const targetOf = (args: ReadonlyArray<unknown>): { host: string; port: number } | { path: string } => {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0]
  if (first !== null && typeof first === "object") {
    const options = first as { path?: unknown; host?: unknown; port?: unknown }
    if (typeof options.path === "string" && options.path !== "") return { path: options.path }
    return {
      host: typeof options.host === "string" && options.host !== "" ? options.host : "localhost",
      port: Number(options.port)
    }
  }
  if (typeof first === "string" && !/^[0-9]+$/.test(first)) return { path: first }
  const host = Array.isArray(args[0]) ? undefined : args[1]
  return { host: typeof host === "string" && host !== "" ? host : "localhost", port: Number(first) }
}

/**
 * `lookup` answers an IP literal itself, asking nobody; every other dns function (`resolve*`, `reverse`,
 * `lookupService`) sends its argument to a DNS server, IP or not.
 */
const lookupAllowed = (host: unknown, literalIsLocal: boolean) =>
  typeof host !== "string" ||
  (literalIsLocal && Net.isIP(hostKey(host)) !== 0) ||
  connecting > 0 ||
  installed === undefined ||
  installed.lookups.has(hostKey(host)) ||
  permitted(host, undefined)

const lastFunction = (args: ReadonlyArray<unknown>) => {
  const last = args[args.length - 1]
  return typeof last === "function" ? (last as (error: Error) => void) : undefined
}

/** A lookup refused as a name that does not exist, so clients take their usual path for it. */
const lookupError = (host: string) => {
  const error = refuse({ kind: "lookup", host: hostKey(host) })
  return Object.assign(new Error(error.message), {
    name: "EgressRefused",
    code: "ENOTFOUND",
    hostname: error.attempt.host
  })
}

type AnyFunction = (this: unknown, ...args: Array<unknown>) => unknown

/** Replaces `target[name]`; returns how to put it back. */
const replace = (target: object, name: string, make: (original: AnyFunction) => AnyFunction) => {
  const holder = target as Record<string, unknown>
  const original = holder[name]
  if (typeof original !== "function") return () => {}
  holder[name] = make(original as AnyFunction)
  return () => {
    holder[name] = original
  }
}

const guardCallbackLookup =
  (literalIsLocal: boolean) =>
  (original: AnyFunction): AnyFunction =>
    function (this: unknown, ...args) {
      if (lookupAllowed(args[0], literalIsLocal)) return original.apply(this, args)
      const callback = lastFunction(args)
      const error = lookupError(String(args[0]))
      if (callback === undefined) throw error
      process.nextTick(callback, error)
      return undefined
    }

const guardPromiseLookup =
  (literalIsLocal: boolean) =>
  (original: AnyFunction): AnyFunction =>
    function (this: unknown, ...args) {
      if (lookupAllowed(args[0], literalIsLocal)) return original.apply(this, args)
      return Promise.reject(lookupError(String(args[0])))
    }

const resolverMethods = (target: object) =>
  Object.getOwnPropertyNames(target).filter(
    (name) =>
      (name.startsWith("resolve") || name === "reverse" || name === "lookupService") &&
      typeof (target as Record<string, unknown>)[name] === "function"
  )

/** Where a `dgram.Socket#send` goes: `send(msg[, offset, length], port[, address][, callback])`. */
const udpTargetOf = (args: ReadonlyArray<unknown>) => {
  const rest =
    typeof args[1] === "number" && typeof args[2] === "number" && typeof args[3] === "number"
      ? args.slice(3)
      : args.slice(1)
  const port = typeof rest[0] === "number" ? rest[0] : undefined
  const host = typeof rest[1] === "string" ? rest[1] : "localhost"
  return { host, port }
}

/**
 * Installs the guard in this process (once; a second call only widens the allow-list). Install it before any
 * plugin is imported, so that what a plugin does at import time is caught too.
 */
export const install = (options: Options = {}): void => {
  const allow = options.allow ?? []
  const lookups = [
    ...(options.lookups ?? []),
    ...allow.flatMap((destination) => ("host" in destination ? [destination.host] : []))
  ]
  if (installed !== undefined) {
    for (const destination of allow) {
      if ("host" in destination) installed.connects.add(connectKey(destination.host, destination.port))
      else installed.paths.add(destination.path)
    }
    for (const host of lookups) installed.lookups.add(hostKey(host))
    if (options.report !== undefined) installed.report = options.report
    return
  }
  const restores: Array<() => void> = []
  restores.push(
    replace(
      Net.Socket.prototype,
      "connect",
      (original) =>
        function (this: unknown, ...args) {
          const target = targetOf(args)
          const allowed =
            installed === undefined ||
            ("path" in target
              ? installed.paths.has(target.path)
              : installed.connects.has(connectKey(target.host, target.port)) || permitted(target.host, target.port))
          if (allowed) {
            connecting += 1
            try {
              return original.apply(this, args)
            } finally {
              connecting -= 1
            }
          }
          const error = refuse(
            "path" in target
              ? { kind: "connect", host: "unix socket" }
              : { kind: "connect", host: hostKey(target.host), port: target.port }
          )
          const socket = this as Net.Socket
          process.nextTick(() => socket.destroy(error))
          return socket
        }
    )
  )
  restores.push(replace(Dns, "lookup", guardCallbackLookup(true)))
  restores.push(replace(Dns.promises, "lookup", guardPromiseLookup(true)))
  for (const name of resolverMethods(Dns)) restores.push(replace(Dns, name, guardCallbackLookup(false)))
  for (const name of resolverMethods(Dns.promises)) {
    restores.push(replace(Dns.promises, name, guardPromiseLookup(false)))
  }
  for (const name of resolverMethods(Dns.Resolver.prototype)) {
    restores.push(replace(Dns.Resolver.prototype, name, guardCallbackLookup(false)))
  }
  for (const name of resolverMethods(Dns.promises.Resolver.prototype)) {
    restores.push(replace(Dns.promises.Resolver.prototype, name, guardPromiseLookup(false)))
  }
  const refuseUdp = (
    original: AnyFunction,
    targetOfCall: (args: ReadonlyArray<unknown>) => {
      host: string
      port: number | undefined
    }
  ): AnyFunction =>
    function (this: unknown, ...args) {
      if (installed === undefined) return original.apply(this, args)
      const target = targetOfCall(args)
      const error = refuse({ kind: "udp", host: hostKey(target.host), port: target.port })
      const callback = lastFunction(args)
      if (callback !== undefined) process.nextTick(callback, error)
      else process.nextTick(() => (this as Dgram.Socket).emit("error", error))
      return undefined
    }
  restores.push(replace(Dgram.Socket.prototype, "send", (original) => refuseUdp(original, udpTargetOf)))
  restores.push(
    replace(Dgram.Socket.prototype, "connect", (original) =>
      refuseUdp(original, (args) => ({
        host: typeof args[1] === "string" ? args[1] : "localhost",
        port: typeof args[0] === "number" ? args[0] : undefined
      }))
    )
  )
  installed = {
    connects: new Set(
      allow.flatMap((destination) => ("host" in destination ? [connectKey(destination.host, destination.port)] : []))
    ),
    paths: new Set(allow.flatMap((destination) => ("path" in destination ? [destination.path] : []))),
    lookups: new Set(lookups.map(hostKey)),
    report: options.report,
    restore: () => {
      for (const restore of restores.reverse()) restore()
    }
  }
  // ES modules importing `node:dns` by name (`import { lookup } from "node:dns"`) see the patched functions too.
  syncBuiltinESMExports()
}

/** Removes the guard (tests and the conformance kit); refusals already counted stay counted. */
export const uninstall = (): void => {
  if (installed === undefined) return
  installed.restore()
  installed = undefined
  syncBuiltinESMExports()
}

/** A database or Redis URL's destination (`postgres://`, `redis://`, …), with the scheme's default port. */
export const destinationOfUrl = (raw: string, defaultPort: number): Destination | undefined => {
  const url = URL.parse(raw)
  if (url === null || url.hostname === "") return undefined
  return { host: hostKey(url.hostname), port: url.port === "" ? defaultPort : Number(url.port) }
}
