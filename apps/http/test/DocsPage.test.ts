/**
 * The reference page at `/docs` (both APIs) asks no other host for anything: it tells no third party who reads it
 * and renders the same with no network. Read from the page as served, every resource it can load: `link`, `script`,
 * `img`, `iframe`, … references and `style` blocks and attributes (`@import`, `url(…)`) in the markup; in its inline
 * scripts, the stylesheets they inject (`@import`, `url(…)`: only Scalar's default fonts, which the page's
 * configuration turns off) and a CDN for the bundle; in the API descriptions it renders, images and embedded
 * markup. (Checked once by hand in headless Chromium as well: before, the page asked fonts.scalar.com for
 * inter-latin.woff2 and mono-latin.woff2; now it asks only its own origin, for favicon.ico.)
 */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ShippingApi } from "@tawsil/api/shipping/Api"
import { StoreApi } from "@tawsil/api/store/Api"
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { OpenApi } from "effect/http-api"
import * as Server from "../src/Server.ts"

/** Serves a docs page on a free loopback port for the scope; its origin. */
const servePage = (page: Layer.Layer<never, never, HttpRouter.HttpRouter>) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      HttpRouter.serve(page, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 }))
      )
    )
    return HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)
  })

/** Whether `reference` (as written in the page) points at a host other than `origin`. */
const elsewhere = (reference: string, origin: string) => {
  const text = reference.trim().replace(/^["']|["']$/g, "")
  if (text === "" || /^(data|blob|about|javascript):/i.test(text) || text.startsWith("#")) return false
  try {
    return new URL(text, origin).origin !== origin
  } catch {
    return false
  }
}

/**
 * `@import` targets and `url(…)` arguments of a stylesheet's text. In script text (`inScript`), `url(` must be
 * lowercase and not a call (`new URL(…)`, `x.url(…)`), as CSS carried in a string is written.
 */
const cssReferences = (css: string, inScript = false): ReadonlyArray<string> => [
  ...[...css.matchAll(inScript ? /(?<![\w$.])url\(\s*([^)]*?)\s*\)/g : /url\(\s*([^)]*?)\s*\)/gi)].map(
    ([, argument]) => argument!
  ),
  ...[...css.matchAll(/@import\s+(?:url\()?\s*(["'][^"']*["']|[^\s;)]+)/gi)].map(([, target]) => target!)
]

const ELEMENT_REFERENCES = /<([a-z][a-z0-9-]*)\b([^>]*)>/gi
const ATTRIBUTE = /\b(href|src|srcset|poster|data|action|formaction|style|content)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi

/** Every reference the markup (scripts and style blocks taken out) makes a browser load, with where it is. */
const markupReferences = (markup: string): ReadonlyArray<{ readonly where: string; readonly reference: string }> => {
  const found: Array<{ where: string; reference: string }> = []
  for (const [, tag, attributes] of markup.matchAll(ELEMENT_REFERENCES)) {
    for (const [, name, quoted] of attributes!.matchAll(ATTRIBUTE)) {
      const value = quoted!.replace(/^["']|["']$/g, "")
      const where = `<${tag} ${name}>`
      if (name === "style") for (const reference of cssReferences(value)) found.push({ where, reference })
      else if (name === "srcset") {
        for (const candidate of value.split(",")) found.push({ where, reference: candidate.trim().split(/\s+/)[0]! })
      } else if (name === "content") {
        // <meta http-equiv="refresh" content="0; url=…">
        const refresh = /url\s*=\s*(.+)$/i.exec(value)
        if (refresh) found.push({ where, reference: refresh[1]! })
      } else if (!(tag === "a" && name === "href")) found.push({ where, reference: value }) // a link is not a load
    }
  }
  return found
}

const pages = [
  { name: "shipping", page: Server.docsPage(ShippingApi), spec: OpenApi.fromApi(ShippingApi) },
  { name: "store", page: Server.docsPage(StoreApi), spec: OpenApi.fromApi(StoreApi) }
] as const

describe("the /docs page", () => {
  for (const { name, page: docsPage, spec } of pages) {
    it.live(`of the ${name} API loads nothing from another host`, () =>
      Effect.gen(function* () {
        const origin = yield* servePage(docsPage)
        const response = yield* Effect.promise(() => fetch(`${origin}/docs`))
        assert.strictEqual(response.status, 200)
        assert.match(response.headers.get("content-type") ?? "", /^text\/html/)
        const page = yield* Effect.promise(() => response.text())

        const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)]
        const styles = [...page.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map(([, css]) => css!)
        const markup = page
          .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
          .replace(/<style\b[^>]*>[\s\S]*?<\/style>/gi, "")

        // The markup: link, img, iframe, … and style attributes; the style blocks.
        const references = [
          ...markupReferences(markup),
          ...styles.flatMap((css) => cssReferences(css).map((reference) => ({ where: "<style>", reference }))),
          ...scripts.flatMap(([, attributes]) =>
            markupReferences(`<script${attributes}>`).map((found) => ({ ...found, where: "<script>" }))
          )
        ]
        const foreign = references.filter(({ reference }) => elsewhere(reference, origin))
        assert.deepStrictEqual(foreign, [], "the markup loads from another host")
        assert.isAbove(scripts.length, 0)
        for (const [, attributes] of scripts) assert.notMatch(attributes!, /\bsrc\s*=/, "the bundle is inline")

        // The inline scripts: the stylesheets they inject load only Scalar's default fonts, which are turned off.
        const code = scripts.map(([, , body]) => body!).join("\n")
        const injected = cssReferences(code.replaceAll('\\"', '"'), true).filter((reference) =>
          elsewhere(reference, origin)
        )
        assert.isNotEmpty(injected, "the bundle still carries Scalar's default fonts, off by configuration")
        for (const reference of injected) {
          assert.match(reference, /^https:\/\/fonts\.scalar\.com\/[a-z-]+\.woff2$/, "only the default fonts")
        }
        const configuration = /createApiReference\([^,]*,\s*\{\s*\.\.\.(\{[\s\S]*?\}),\s*content:/.exec(code)
        assert.isNotNull(configuration, "the page passes Scalar its configuration")
        const config = JSON.parse(configuration![1]!) as Record<string, unknown>
        assert.strictEqual(config.withDefaultFonts, false, "Scalar's default fonts are off")
        assert.notProperty(config, "proxyUrl", "no request proxy")
        assert.notMatch(String(config.customCss), /url\(|@import/, "the page's own CSS loads nothing")
        assert.notMatch(code, /cdn\.jsdelivr\.net\/npm\/@scalar\/api-reference@/, "not the CDN bundle")

        // The API's descriptions, which the page renders as Markdown: no image or embedded markup from elsewhere.
        const described = JSON.stringify(spec)
        const images = [...described.matchAll(/!\[[^\]]*\]\(\s*([^)\s]+)/g)].map(([, target]) => target!)
        const embedded = markupReferences(described.replaceAll('\\"', '"')).map(({ reference }) => reference)
        assert.deepStrictEqual(
          [...images, ...embedded].filter((reference) => elsewhere(reference, origin)),
          [],
          "a description loads from another host"
        )
      }).pipe(Effect.scoped)
    )
  }
})
