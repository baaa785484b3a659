import { assert, describe, it } from "@effect/vitest"
import * as Egress from "@tawsil/egress/Egress"
import { Effect, Result } from "effect"
import * as WebhookUrl from "../src/WebhookUrl.ts"
import { hostileNames, hostileUrls } from "./HostileUrls.ts"

const resolver = Egress.Resolver.layerTest({
  ...hostileNames,
  "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07::1"]
})

const refusal = (url: string, allow = WebhookUrl.noHostsAllowed) =>
  WebhookUrl.resolve(url, allow).pipe(Effect.flip, Effect.provide(resolver))

describe("WebhookUrl", () => {
  it("refuses every hostile URL class by its text, before any DNS", () => {
    for (const [url, why] of hostileUrls) {
      const result = WebhookUrl.check(url, WebhookUrl.noHostsAllowed)
      assert.isTrue(Result.isFailure(result), `${why}: ${url}`)
      if (Result.isFailure(result)) assert.notInclude(result.failure, "s3cr3t", "credentials are never echoed")
    }
  })

  it.effect("refuses a name resolving to a private, loopback, link-local, metadata or mixed address, or to none", () =>
    Effect.gen(function* () {
      for (const name of Object.keys(hostileNames)) {
        const reason = yield* refusal(`https://${name}/hook`)
        assert.match(reason, name === "nowhere.example.com" ? /does not resolve/ : /resolves to a private/, name)
        for (const address of hostileNames[name]!) assert.notInclude(reason, address, "the address is not echoed")
      }
    })
  )

  it.effect("accepts a public https URL and pins it to a checked address", () =>
    Effect.gen(function* () {
      const target = yield* WebhookUrl.resolve(
        "https://hooks.example.com/tawsil?shop=1",
        WebhookUrl.noHostsAllowed
      ).pipe(Effect.provide(resolver))
      assert.strictEqual(target.url.href, "https://hooks.example.com/tawsil?shop=1")
      assert.strictEqual(target.address, "93.184.215.14")
    })
  )

  it.effect("WEBHOOK_ALLOW_HOSTS exempts exactly the hosts it names: http, any port, IP literals, no DNS", () =>
    Effect.gen(function* () {
      const allow = Result.getOrThrow(WebhookUrl.parseAllowHosts(" 127.0.0.1, Hooks.Internal ,[::1],"))
      assert.deepStrictEqual([...allow.hosts], ["127.0.0.1", "hooks.internal", "::1"])
      for (const url of ["http://127.0.0.1:9000/hook", "https://hooks.internal:8443/x", "http://[::1]:81/"]) {
        const target = yield* WebhookUrl.resolve(url, allow).pipe(Effect.provide(resolver))
        assert.strictEqual(target.address, undefined, url)
      }
      // Not named, so not exempt; and credentials or fragments stay refused even for an exempt host.
      for (const url of [
        "http://127.0.0.2:9000/hook",
        "http://localhost:9000/hook",
        "http://user:pw@127.0.0.1:9000/",
        "http://127.0.0.1:9000/#x",
        "ftp://127.0.0.1/"
      ]) {
        yield* refusal(url, allow)
      }
      assert.isTrue(Result.isFailure(WebhookUrl.parseAllowHosts("http://127.0.0.1")))
      assert.isTrue(Result.isFailure(WebhookUrl.parseAllowHosts("127.0.0.1:8080")))
      assert.strictEqual(Result.getOrThrow(WebhookUrl.parseAllowHosts(undefined)).hosts.size, 0)
    })
  )
})
