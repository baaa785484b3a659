/**
 * A webhook URL is caller input aimed at our network (SSRF). These are the rules it must pass, when a subscription
 * is made or changed and again before every delivery attempt:
 *
 * - an absolute `https` URL of at most 2 048 printable ASCII characters, on the default port, with no user name or
 *   password and no fragment;
 * - naming a host, not an IP address in any notation (WHATWG `URL` turns `2130706433`, `0x7f.1` or `017700000001`
 *   into dotted form, and these are refused as literals); a fully qualified name, not `localhost`, `*.localhost`,
 *   `*.local`, `*.internal` or a single label;
 * - whose every DNS address is public (`Egress.isPublicAddress` of `@tawsil/egress`, the address rules the courier
 *   transport uses: no private, loopback, link-local, metadata, CGNAT, multicast, documentation or reserved range, in
 *   IPv4 or IPv6); a delivery then connects to exactly the checked address, never resolving again.
 *
 * Redirects are never followed (the dispatcher records a 3xx as a failed attempt).
 *
 * `WEBHOOK_ALLOW_HOSTS` (process configuration only: no request can widen it) names hosts — names or addresses, as
 * written in URLs — exempt from every rule but the first's shape, credentials and fragment: `http`, any port, an IP
 * literal, a private address. It exists for tests with a loopback receiver and for private deployments.
 */
import { isIP } from "node:net"
import * as Egress from "@tawsil/egress/Egress"
import { Effect, Result } from "effect"

/** The hosts `WEBHOOK_ALLOW_HOSTS` exempts, lowercased, IPv6 without brackets. */
export interface AllowList {
  readonly hosts: ReadonlySet<string>
}

export const noHostsAllowed: AllowList = { hosts: new Set() }

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

const isHostName = (host: string) => host.length <= 253 && host.split(".").every((label) => LABEL.test(label))

const unbracketed = (host: string) => (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host)

/** Reads `WEBHOOK_ALLOW_HOSTS`: comma-separated host names or IP addresses; blank means none. */
export const parseAllowHosts = (value: string | undefined): Result.Result<AllowList, string> => {
  const hosts = new Set<string>()
  for (const [index, raw] of (value ?? "").split(",").entries()) {
    const entry = unbracketed(raw.trim().toLowerCase())
    if (entry === "") continue
    if (isIP(entry) === 0 && !isHostName(entry)) {
      return Result.fail(`entry ${index + 1} is not a host name or an IP address (no scheme, port or path)`)
    }
    hosts.add(entry)
  }
  return Result.succeed({ hosts })
}

/** A URL that passed the rules: the parsed URL and whether its host is exempt (`WEBHOOK_ALLOW_HOSTS`). */
export interface Checked {
  readonly url: URL
  readonly exempt: boolean
}

/** Where a delivery connects: the URL, and the checked address to pin the connection to (none for an exempt host). */
export interface Target {
  readonly url: URL
  readonly address: string | undefined
}

const MAX_LENGTH = 2048
const PRIVATE_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa"]

const refuse = (reason: string) => Result.fail(reason)

/** The rules a URL's text must pass (no DNS); the reason is safe to show: it never repeats credentials. */
export const check = (raw: string, allow: AllowList): Result.Result<Checked, string> => {
  if (raw.length > MAX_LENGTH) return refuse(`url is longer than ${MAX_LENGTH} characters`)
  if (!/^[\x21-\x7e]+$/.test(raw)) {
    return refuse("url must be printable ASCII without spaces (percent-encode the rest)")
  }
  const url = URL.parse(raw)
  if (url === null || !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return refuse("url must be an absolute https URL")
  if (url.username !== "" || url.password !== "" || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw)) {
    return refuse("url must not contain a user name or password")
  }
  if (url.hash !== "" || raw.includes("#")) return refuse("url must not have a fragment")
  const host = unbracketed(url.hostname)
  const exempt = allow.hosts.has(host)
  if (exempt) {
    return url.protocol === "https:" || url.protocol === "http:"
      ? Result.succeed({ url, exempt })
      : refuse("url must use https")
  }
  if (url.protocol !== "https:") return refuse("url must use https")
  if (isIP(host) !== 0) return refuse("url must name a host, not an IP address")
  if (url.port !== "") return refuse("url must use the default https port (443)")
  if (host.endsWith(".")) return refuse("url's host must not end with a dot")
  if (!isHostName(host) || !host.includes(".")) return refuse("url's host must be a fully qualified domain name")
  if (host === "localhost" || PRIVATE_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    return refuse("url names a local or internal host")
  }
  return Result.succeed({ url, exempt })
}

/**
 * The rules in full: `check`, then — unless the host is exempt — DNS, every address public. Succeeds with the
 * address to connect to (the first checked one); fails with the reason, which never names the private address.
 */
export const resolve = Effect.fn("WebhookUrl.resolve")(function* (raw: string, allow: AllowList) {
  const checked = yield* Effect.fromResult(check(raw, allow))
  if (checked.exempt) return { url: checked.url, address: undefined } satisfies Target
  const host = checked.url.hostname
  const addresses = yield* Egress.Resolver.use((resolver) => resolver.lookup(host)).pipe(
    Effect.mapError((error) => `url's host could not be resolved now (${error.code})`)
  )
  if (addresses.length === 0) return yield* Effect.fail(`url's host ${host} does not resolve`)
  if (!addresses.every(Egress.isPublicAddress)) {
    return yield* Effect.fail(`url's host ${host} resolves to a private, loopback, link-local or metadata address`)
  }
  return { url: checked.url, address: addresses[0] } satisfies Target
})
