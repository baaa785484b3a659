/**
 * The egress rules: which hosts Tawsil may contact, checked on every outgoing request, so that a caller's input can
 * never turn the service into a proxy for internal addresses (SSRF). The courier transport applies them to every
 * courier request (`HttpTransport` of `@tawsil/shipping`); the webhook client uses the address rules
 * ({@link isPublicAddress}, {@link Resolver}) for subscribers' URLs (`@tawsil/webhooks`).
 *
 * Each courier is pinned to one {@link Origin}. Only a generic platform key (a courier declared with a tenant domain)
 * takes a caller's `options.baseUrl`, and {@link parseBaseUrl} accepts nothing but `https://<tenant>.<domain>`. Before
 * any socket opens, the core builds the URL from a relative path ({@link requestUrl}), checks it
 * ({@link checkRequestUrl}), resolves the host and refuses it unless every address is public ({@link resolvePublic}),
 * then connects to one of exactly those addresses. Redirects are never followed: a 3xx reaches the adapter as an
 * answer, which its mapping reports (a tenant that moved is a courier fault, not a hop to make). Everything refused
 * is a {@link BlockedEgress}.
 *
 * Tests and local runs may send a pinned origin to a loopback fake, but only through the process variable
 * {@link overridesVariable} ({@link parseOverrides}); nothing in a request can add or change an override.
 */

import * as Dns from "node:dns"
import { BlockList, isIP } from "node:net"
import { Context, Effect, Layer, Result, Schema } from "effect"
import * as ProcessEgress from "./ProcessEgress.ts"

/** An outgoing request was refused by the egress rules. `reason` is safe to show: it never echoes credentials. */
export class BlockedEgress extends Schema.TaggedError<BlockedEgress>()("BlockedEgress", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/**
 * What a courier may reach: one pinned origin, or (for the generic platform key only) any strict subdomain of the
 * platform's tenant domain.
 */
export type Allowance =
  | { readonly kind: "exact"; readonly origin: Origin }
  | { readonly kind: "tenant"; readonly domain: string }

const blocked = (reason: string) => Result.fail(new BlockedEgress({ reason }))

// A little over the 253-character DNS limit plus `https://` and a slash: anything longer is refused unread.
const MAX_ORIGIN_LENGTH = 300
const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

// The checks behind `parseOrigin`, unbranded so that the `Origin` schema can apply them too.
const canonicalOrigin = (raw: string): Result.Result<string, BlockedEgress> => {
  if (raw.length > MAX_ORIGIN_LENGTH) return blocked("the address is too long")
  if (!/^[\x21-\x7e]+$/.test(raw)) return blocked("the address is empty or has spaces, control or non-ASCII characters")
  if (/[\\%]/.test(raw)) return blocked("the address has a backslash or percent-encoding")
  const url = URL.parse(raw)
  if (url === null) return blocked("the address is not a URL")
  if (url.protocol !== "https:" || !/^https:\/\//i.test(raw)) return blocked("the address must start with https://")
  if (url.username !== "" || url.password !== "" || raw.includes("@")) return blocked("the address has credentials")
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    return blocked("the address must be an origin, without a path, query or fragment")
  }
  const host = url.hostname
  if (host.startsWith("[") || isIP(host) !== 0) return blocked("the address must name a host, not an IP address")
  if (host.endsWith(".")) return blocked("the host must not end with a dot")
  if (host.length > 253 || !host.split(".").every((part) => label.test(part)) || !host.includes(".")) {
    return blocked("the host is not a valid domain name")
  }
  const origin = `https://${host}`
  const written = raw.toLowerCase()
  if (written !== origin && written !== `${origin}/`) {
    return blocked(
      `the address must be written exactly ${origin}, with no port (not even :443), path, query or fragment`
    )
  }
  return Result.succeed(origin)
}

/**
 * `https://host`: lowercase, ASCII (punycode), no trailing dot, no port, no path, not an IP address. Decoding
 * accepts only what {@link parseOrigin} would give, so a decoded origin is as safe as a parsed one.
 */
export const Origin = Schema.String.check(
  Schema.makeFilter((input: string) =>
    Result.getOrUndefined(canonicalOrigin(input)) === input ? true : "Expected an origin https://host"
  )
).pipe(Schema.brand("Origin"))
export type Origin = typeof Origin.Type

/**
 * The only origin form accepted anywhere: the input must already be canonical, `https://host` with an optional
 * trailing slash (any letter case). WHATWG `URL` repairs a lot (`https:host`, `:443`, `%2e`, `。`, fullwidth letters,
 * decimal IPs, tabs); a value that needed repairing is refused rather than trusted. Hence no explicit port, not
 * even `:443`, no trailing dot, and no path, query or fragment: a base URL is an origin. Messages name the host
 * only once it has been checked, so credentials in the input are never echoed.
 */
export const parseOrigin = (raw: string): Result.Result<Origin, BlockedEgress> =>
  Result.map(canonicalOrigin(raw), (origin) => origin as Origin)

/** The host of an origin. */
export const hostOf = (origin: Origin): string => origin.slice("https://".length)

const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa"]

/**
 * Whether a host name is one that only a local network answers: `localhost`, `*.localhost`, `*.local`, `*.internal`
 * (`metadata.google.internal`), `*.home.arpa`.
 */
export const isLocalName = (host: string): boolean =>
  host === "localhost" || LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix))

/**
 * A link to a public web page that Tawsil stores and shows but never fetches (a store's social pages, a storefront
 * button's target): an absolute `https` URL without credentials (nor an `@` before its path), on the default port,
 * whose host passes the origin rules of {@link parseOrigin} — a domain name, never an IP address in any notation
 * (`2130706433` is `127.0.0.1` to a browser), no trailing dot — and is not a local name ({@link isLocalName}). Its
 * path, query and fragment are the page's. No DNS: the link is not ours to connect to, and a name's addresses may
 * change after any check.
 */
export const parsePublicLink = (raw: string): Result.Result<URL, BlockedEgress> => {
  if (!/^[^\s\p{Cc}]+$/u.test(raw)) return blocked("the link has spaces or control characters")
  const url = URL.parse(raw)
  if (url === null || url.protocol !== "https:" || !/^https:\/\//i.test(raw)) {
    return blocked("the link must be an https URL")
  }
  const authority = /^https:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? ""
  if (url.username !== "" || url.password !== "" || authority.includes("@")) return blocked("the link has credentials")
  if (url.port !== "") return blocked("the link must use the default https port")
  return Result.flatMap(parseOrigin(url.origin), (origin) =>
    isLocalName(hostOf(origin)) ? blocked("the link names a local host") : Result.succeed(url)
  )
}

const isStrictSubdomain = (host: string, domain: string): boolean => host.endsWith(`.${domain}`)

/**
 * A caller's `options.baseUrl` for the generic platform key: `https://<tenant>.<tenantDomain>` (any number of
 * tenant labels, at least one; the bare domain is not a tenant). See {@link parseOrigin} for the accepted form.
 */
export const parseBaseUrl = (raw: string, tenantDomain: string): Result.Result<Origin, BlockedEgress> =>
  Result.flatMap(parseOrigin(raw), (origin) =>
    isStrictSubdomain(hostOf(origin), tenantDomain)
      ? Result.succeed(origin)
      : blocked(`${hostOf(origin)} is not a tenant address under ${tenantDomain}`)
  )

const allows = (allowance: Allowance, origin: Origin): boolean =>
  allowance.kind === "exact" ? origin === allowance.origin : isStrictSubdomain(hostOf(origin), allowance.domain)

/**
 * Applied to every outgoing request URL and every redirect target: https, port 443, no credentials, no IP
 * literal, and a host the allowance names. The path and query are the adapter's business.
 */
export const checkRequestUrl = (url: URL, allowance: Allowance): Result.Result<void, BlockedEgress> => {
  if (url.protocol !== "https:") return blocked("requests must use https")
  if (url.port !== "") return blocked("requests must use port 443")
  if (url.username !== "" || url.password !== "") return blocked("the request URL has credentials")
  // By now `url.origin` is `https://host`; parsing it refuses IP literals, trailing dots and malformed names.
  return Result.flatMap(parseOrigin(url.origin), (origin) =>
    allows(allowance, origin) ? Result.void : blocked(`${hostOf(origin)} is not an allowed courier host`)
  )
}

/**
 * The URL of a request to `path` on the pinned origin. The path must be relative to the origin: `//host`,
 * backslashes and anything that would leave the origin are refused.
 */
export const requestUrl = (origin: Origin, path: string): Result.Result<URL, BlockedEgress> => {
  if (!path.startsWith("/") || path.startsWith("//") || !/^[\x21-\x7e]*$/.test(path) || path.includes("\\")) {
    return blocked("the request path must be relative to the courier's origin")
  }
  const url = URL.parse(path, origin)
  if (url === null) return blocked("the request path is not a valid URL path")
  // Dot segments can normalise into `//host` (`/.//evil.com`): such a path, joined to any other base, leaves it.
  if (url.pathname.startsWith("//")) return blocked("the request path must be relative to the courier's origin")
  return Result.map(checkRequestUrl(url, { kind: "exact", origin }), () => url)
}

// Everything IANA marks as not globally reachable (or documentation, benchmarking, 6to4 relay), by RFC 6890 and
// its updates. 240.0.0.0/4 includes the broadcast address 255.255.255.255.
const nonPublicV4 = new BlockList()
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4]
] as const) {
  nonPublicV4.addSubnet(network, prefix, "ipv4")
}

// IPv6 is an allow-list: only global unicast 2000::/3 is public, which already leaves out ::, ::1, the deprecated
// IPv4-compatible ::/96, NAT64 64:ff9b::/96, discard 100::/64, fc00::/7, fe80::/10, fec0::/10 and ff00::/8.
const globalUnicastV6 = new BlockList()
globalUnicastV6.addSubnet("2000::", 3, "ipv6")
// Special blocks inside 2000::/3: IETF protocol assignments (Teredo, benchmarking, ORCHID), documentation, and
// 6to4, whose embedded IPv4 address may be private.
const nonPublicV6 = new BlockList()
for (const [network, prefix] of [
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["3fff::", 20]
] as const) {
  nonPublicV6.addSubnet(network, prefix, "ipv6")
}
const mappedV4 = new BlockList()
mappedV4.addSubnet("::ffff:0:0", 96, "ipv6")

/**
 * Whether `ip` (as DNS answers it: dotted IPv4 or IPv6, no brackets) is a public unicast address. IPv4-mapped
 * IPv6 follows the IPv4 rules (a `BlockList` checks a mapped address against its IPv4 subnets). Anything that is
 * not a plain address (zone ids, brackets, short or octal IPv4 forms) is not public.
 */
export const isPublicAddress = (ip: string): boolean => {
  if (ip.includes("%")) return false
  switch (isIP(ip)) {
    case 4:
      return !nonPublicV4.check(ip, "ipv4")
    case 6:
      if (mappedV4.check(ip, "ipv6")) return !nonPublicV4.check(ip, "ipv6")
      return globalUnicastV6.check(ip, "ipv6") && !nonPublicV6.check(ip, "ipv6")
    default:
      return false
  }
}

/** Name resolution failed for a reason other than the name not existing (a resolver down or timing out). */
export class ResolutionFailed extends Schema.TaggedError<ResolutionFailed>()("ResolutionFailed", {
  host: Schema.String,
  code: Schema.String
}) {
  override get message() {
    return `the name ${this.host} could not be resolved now (${this.code})`
  }
}

/** Name resolution, injectable so tests can make any name resolve anywhere without DNS. */
export class Resolver extends Context.Service<
  Resolver,
  {
    /** Every address of `host`; none when the name does not exist. */
    readonly lookup: (host: string) => Effect.Effect<ReadonlyArray<string>, ResolutionFailed>
  }
>()("@tawsil/egress/Egress/Resolver") {
  /**
   * The system resolver (`getaddrinfo`, as a socket would use it). A name that does not exist resolves to nothing;
   * any other failure (`EAI_AGAIN`, a resolver down) is `ResolutionFailed`, which callers treat as unreachable.
   */
  static readonly layer = Layer.succeed(Resolver, {
    lookup: (host) =>
      Effect.tryPromise({
        // The process egress guard lets the transport's own lookup of a courier host through.
        try: () => ProcessEgress.permit({ host }, () => Dns.promises.lookup(host, { all: true })),
        catch: (error) => (error as NodeJS.ErrnoException).code ?? "unknown"
      }).pipe(
        Effect.map((answers): ReadonlyArray<string> => answers.map((answer) => answer.address)),
        Effect.catch((code) =>
          code === "ENOTFOUND" || code === "ENODATA"
            ? Effect.succeed([])
            : Effect.fail(new ResolutionFailed({ host, code }))
        )
      )
  })

  /** Fixed answers; a name that is not listed does not resolve. */
  static readonly layerTest = (answers: Readonly<Record<string, ReadonlyArray<string>>>) =>
    Layer.succeed(Resolver, {
      lookup: (host) => Effect.succeed(Object.hasOwn(answers, host) ? answers[host]! : [])
    })
}

/**
 * The addresses of `host`, refused unless there is at least one and every one is public: a mixed answer (one
 * public, one private) is refused whole, since the connection could land on either. The client then connects to
 * one of exactly these addresses, never resolving again. The refused address itself is not echoed.
 */
export const resolvePublic = Effect.fn("Egress.resolvePublic")(function* (host: string) {
  if (isIP(host) !== 0) return yield* new BlockedEgress({ reason: "the host must be a name, not an IP address" })
  const addresses = yield* Resolver.use((resolver) => resolver.lookup(host))
  if (addresses.length === 0) return yield* new BlockedEgress({ reason: `${host} does not resolve` })
  if (!addresses.every(isPublicAddress)) {
    return yield* new BlockedEgress({ reason: `${host} resolves to a non-public address` })
  }
  return addresses
})

/** The process variable holding loopback overrides. Only the process sets it; no request can. */
export const overridesVariable = "TAWSIL_COURIER_ORIGINS"

/** The process configuration holding the overrides is wrong; the service must not start. */
export class InvalidOverrides extends Schema.TaggedError<InvalidOverrides>()("InvalidOverrides", {
  reason: Schema.String
}) {
  override get message() {
    return `${overridesVariable}: ${this.reason}`
  }
}

/**
 * Pinned origin (`https://host`) or tenant wildcard (`https://*.domain`, any strict subdomain) → the loopback
 * origin (`http://127.0.0.1:9001`) to connect to instead.
 */
export type Overrides = ReadonlyMap<string, string>

// Messages name the entry by its position, never by its text, which could hold credentials.
const invalid = (reason: string) => Result.fail(new InvalidOverrides({ reason }))

const parseOverrideKey = (raw: string): string | undefined => {
  const wildcard = raw.startsWith("https://*.")
  const origin = Result.getOrUndefined(parseOrigin(wildcard ? `https://${raw.slice("https://*.".length)}` : raw))
  return origin === undefined ? undefined : wildcard ? `https://*.${hostOf(origin)}` : origin
}

const isLoopbackHost = (host: string): boolean =>
  host === "localhost" || host === "[::1]" || (isIP(host) === 4 && host.startsWith("127."))

const parseOverrideTarget = (raw: string): string | undefined => {
  const url = URL.parse(raw)
  return url === null ||
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.username !== "" ||
    url.password !== "" ||
    url.pathname !== "/" ||
    url.search !== "" ||
    url.hash !== "" ||
    !isLoopbackHost(url.hostname)
    ? undefined
    : url.origin
}

/**
 * Reads {@link overridesVariable}: `origin=target` pairs separated by commas, for example
 * `https://platform.dhd-dz.com=http://127.0.0.1:9001,https://*.ecotrack.dz=http://127.0.0.1:9002`. Targets must
 * be loopback; anything else, or a key given twice, is a configuration error. Unset or blank means no overrides.
 */
export const parseOverrides = (value: string | undefined): Result.Result<Overrides, InvalidOverrides> => {
  const overrides = new Map<string, string>()
  const entries = (value ?? "").split(",").map((entry) => entry.trim())
  for (const [index, entry] of entries.entries()) {
    if (entry === "") continue
    const position = `entry ${index + 1}`
    const [rawKey, rawTarget, ...rest] = entry.split("=")
    if (rawKey === undefined || rawTarget === undefined || rest.length > 0) {
      return invalid(`${position} is not origin=target`)
    }
    const key = parseOverrideKey(rawKey)
    if (key === undefined) return invalid(`${position}: the origin is not https://host or https://*.domain`)
    const target = parseOverrideTarget(rawTarget)
    if (target === undefined) {
      return invalid(`${position}: the target is not a loopback origin (http://127.0.0.1:port, [::1] or localhost)`)
    }
    if (overrides.has(key)) return invalid(`${position}: ${key} is given twice`)
    overrides.set(key, target)
  }
  return Result.succeed(overrides)
}

/** The loopback origin that replaces `origin`: an exact entry first, then the closest tenant wildcard. */
export const overrideFor = (overrides: Overrides, origin: Origin): string | undefined => {
  const exact = overrides.get(origin)
  if (exact !== undefined) return exact
  const labels = hostOf(origin).split(".")
  for (let i = 1; i < labels.length - 1; i++) {
    const target = overrides.get(`https://*.${labels.slice(i).join(".")}`)
    if (target !== undefined) return target
  }
  return undefined
}
