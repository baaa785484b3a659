import dns from "node:dns"
import net from "node:net"
import tls from "node:tls"
import { assert, describe, it, vi } from "@effect/vitest"
import { Effect, Layer, Result, Schema } from "effect"
import * as Egress from "../src/Egress.ts"
import { hostileBaseUrls, secret } from "./fixtures/hostileBaseUrls.ts"

const tenant = "ecotrack.dz"
const origin = (raw: string): Egress.Origin => Result.getOrThrow(Egress.parseOrigin(raw))
const dhd = origin("https://platform.dhd-dz.com")

const assertBlocked = (result: Result.Result<unknown, Egress.BlockedEgress>, label: string) => {
  assert.isTrue(Result.isFailure(result), `${JSON.stringify(label)} must be refused`)
  if (Result.isFailure(result)) assert.strictEqual(result.failure._tag, "BlockedEgress")
}

describe("Egress", () => {
  describe("Origin", () => {
    it("decodes only canonical origins", () => {
      const decode = Schema.decodeUnknownResult(Egress.Origin)
      assert.isTrue(Result.isSuccess(decode("https://platform.dhd-dz.com")))
      for (const input of [
        "https://platform.dhd-dz.com/",
        "HTTPS://platform.dhd-dz.com",
        "https://platform.dhd-dz.com:443",
        "https://127.0.0.1",
        "https://localhost",
        "http://platform.dhd-dz.com",
        42
      ]) {
        assert.isTrue(Result.isFailure(decode(input)), String(input))
      }
    })
  })

  describe("parseBaseUrl", () => {
    it("accepts tenant addresses and normalises them to the origin", () => {
      for (const [raw, expected] of [
        ["https://dhd.ecotrack.dz", "https://dhd.ecotrack.dz"],
        ["https://DHD.Ecotrack.DZ/", "https://dhd.ecotrack.dz"],
        ["HTTPS://anderson-ecommerce.ecotrack.dz", "https://anderson-ecommerce.ecotrack.dz"],
        ["https://a.b.ecotrack.dz", "https://a.b.ecotrack.dz"],
        ["https://48hr.ecotrack.dz/", "https://48hr.ecotrack.dz"]
      ] as const) {
        assert.deepStrictEqual(Egress.parseBaseUrl(raw, tenant), Result.succeed(expected as Egress.Origin), raw)
      }
    })

    it("refuses every hostile value in the corpus, without echoing credentials", () => {
      assert.isAtLeast(hostileBaseUrls.length, 60)
      assert.strictEqual(new Set(hostileBaseUrls.map(({ url }) => url)).size, hostileBaseUrls.length, "no duplicates")
      for (const { url, why } of hostileBaseUrls) {
        const result = Egress.parseBaseUrl(url, tenant)
        assertBlocked(result, `${url} (${why})`)
        if (Result.isFailure(result)) assert.notInclude(result.failure.reason, secret, url)
      }
    })

    it.live("opens no socket and looks up no name while refusing the corpus", () =>
      Effect.gen(function* () {
        let connections = 0
        const server = yield* Effect.acquireRelease(
          Effect.callback<net.Server>((resume) => {
            const server = net.createServer((socket) => {
              connections++
              socket.destroy()
            })
            server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
          }),
          (server) =>
            Effect.callback<void>((resume) => {
              server.close(() => resume(Effect.void))
            })
        )
        const { port } = server.address() as net.AddressInfo
        const spies = yield* Effect.acquireRelease(
          Effect.sync(() => [
            vi.spyOn(net.Socket.prototype, "connect"),
            vi.spyOn(net, "connect"),
            vi.spyOn(net, "createConnection"),
            vi.spyOn(tls, "connect"),
            vi.spyOn(dns, "lookup"),
            vi.spyOn(dns.promises, "lookup"),
            vi.spyOn(globalThis, "fetch")
          ]),
          (spies) =>
            Effect.sync(() => {
              for (const spy of spies) spy.mockRestore()
            })
        )
        for (const { url } of hostileBaseUrls) assertBlocked(Egress.parseBaseUrl(url, tenant), url)
        // Values aimed straight at the listening server, as base URLs and as request URLs.
        for (const value of [
          `https://127.0.0.1:${port}`,
          `https://localhost:${port}`,
          `https://[::1]:${port}`,
          `http://127.0.0.1:${port}`,
          `https://a.ecotrack.dz@127.0.0.1:${port}`
        ]) {
          assertBlocked(Egress.parseBaseUrl(value, tenant), value)
          assertBlocked(Egress.checkRequestUrl(new URL(value), { kind: "tenant", domain: tenant }), value)
          assertBlocked(Egress.checkRequestUrl(new URL(value), { kind: "exact", origin: dhd }), value)
        }
        // Let any connection the checks might have started reach the server before counting.
        yield* Effect.sleep("50 millis")
        assert.deepStrictEqual(
          spies.map((spy) => spy.mock.calls.length),
          spies.map(() => 0)
        )
        assert.strictEqual(connections, 0)

        // The instruments work: a real connection is seen by both the spy and the server.
        yield* Effect.callback<void>((resume) => {
          const socket = net.connect(port, "127.0.0.1")
          socket.on("close", () => resume(Effect.void))
          socket.on("error", () => resume(Effect.void))
        })
        assert.isAbove(spies[0]!.mock.calls.length, 0)
        assert.strictEqual(connections, 1)
      })
    )
  })

  describe("parsePublicLink", () => {
    it("accepts https links to public names, any path, query and fragment", () => {
      for (const raw of [
        "https://facebook.com/maisontlemcen",
        "https://www.tiktok.com/@maison.tlemcen?lang=fr",
        "https://WWW.Instagram.com/shop/#top",
        "https://youtube.com/c/متجر"
      ]) {
        assert.isTrue(Result.isSuccess(Egress.parsePublicLink(raw)), raw)
      }
    })

    it("refuses IP literals in any notation, local names, credentials, ports and other schemes", () => {
      for (const raw of [
        "https://169.254.169.254/latest/meta-data/",
        "https://127.0.0.1/",
        "https://10.0.0.7/admin",
        "https://192.168.1.1/",
        "https://2130706433/",
        "https://0x7f.1/",
        "https://017700000001/",
        "https://[::1]/",
        "https://[::ffff:127.0.0.1]/",
        "https://localhost/",
        "https://localhost./",
        "https://example.com./",
        "https://metadata.google.internal/computeMetadata/v1/",
        "https://printer.local/",
        "https://router.home.arpa/",
        "https://intranet/",
        "https://127.0.0.1#@example.com/",
        "https://user:pass@example.com/",
        "https://example.com@evil.com/",
        "https://evil.com\\@example.com/",
        "https://example.com:8443/",
        "http://example.com/",
        "javascript:alert(1)",
        "//example.com/",
        "https://exa mple.com/",
        "https://example.com/\u0000",
        ""
      ]) {
        assertBlocked(Egress.parsePublicLink(raw), raw)
      }
    })

    it("never echoes credentials in its reason", () => {
      const refused = Egress.parsePublicLink("https://admin:hunter2@127.0.0.1/")
      assert.isTrue(Result.isFailure(refused))
      if (Result.isFailure(refused)) assert.notInclude(refused.failure.reason, "hunter2")
    })
  })

  describe("isPublicAddress", () => {
    it("refuses every non-public range, IPv4 and IPv6", () => {
      for (const ip of [
        "0.0.0.0",
        "0.1.2.3",
        "10.0.0.1",
        "10.255.255.255",
        "100.64.0.1",
        "100.127.255.254",
        "127.0.0.1",
        "127.255.255.254",
        "169.254.169.254",
        "172.16.0.1",
        "172.31.255.255",
        "192.0.0.8",
        "192.0.2.1",
        "192.88.99.1",
        "192.168.1.1",
        "198.18.0.1",
        "198.19.255.255",
        "198.51.100.7",
        "203.0.113.9",
        "224.0.0.1",
        "239.255.255.250",
        "240.0.0.1",
        "255.255.255.255",
        "::",
        "::1",
        "::127.0.0.1",
        "fc00::1",
        "fd12:3456::1",
        "fe80::1",
        "febf::1",
        "fec0::1",
        "ff02::1",
        "::ffff:127.0.0.1",
        "::ffff:7f00:1",
        "::ffff:10.0.0.1",
        "::ffff:169.254.169.254",
        "0:0:0:0:0:ffff:c0a8:101",
        "64:ff9b::808:808",
        "64:ff9b:1::1",
        "100::1",
        "2001::1",
        "2001:db8::1",
        "2002:7f00:1::1",
        "3fff::1",
        "fe80::1%eth0",
        "[::1]",
        "127.1",
        "0177.0.0.1",
        "2130706433",
        "localhost",
        ""
      ]) {
        assert.isFalse(Egress.isPublicAddress(ip), ip)
      }
    })

    it("accepts public unicast addresses", () => {
      for (const ip of [
        "8.8.8.8",
        "1.1.1.1",
        "41.111.1.1",
        "172.32.0.1",
        "100.128.0.1",
        "::ffff:8.8.8.8",
        "2606:4700:4700::1111",
        "2001:4860:4860::8888",
        "2a00:1450::1"
      ]) {
        assert.isTrue(Egress.isPublicAddress(ip), ip)
      }
    })
  })

  describe("resolvePublic", () => {
    const resolver = Egress.Resolver.layerTest({
      "good.ecotrack.dz": ["41.111.1.1", "2a00:1450::1"],
      "private.ecotrack.dz": ["10.0.0.1"],
      "loopback.ecotrack.dz": ["::1"],
      "metadata.ecotrack.dz": ["169.254.169.254"],
      "mapped.ecotrack.dz": ["::ffff:192.168.1.1"],
      "mixed.ecotrack.dz": ["41.111.1.1", "127.0.0.1"],
      "empty.ecotrack.dz": []
    })

    it.effect("returns the addresses when every one is public", () =>
      Effect.gen(function* () {
        const addresses = yield* Egress.resolvePublic("good.ecotrack.dz")
        assert.deepStrictEqual(addresses, ["41.111.1.1", "2a00:1450::1"])
      }).pipe(Effect.provide(resolver))
    )

    it.effect("refuses names with any non-public address, names that do not resolve, and IP literals", () =>
      Effect.gen(function* () {
        for (const host of [
          "private.ecotrack.dz",
          "loopback.ecotrack.dz",
          "metadata.ecotrack.dz",
          "mapped.ecotrack.dz",
          "mixed.ecotrack.dz",
          "empty.ecotrack.dz",
          "unknown.ecotrack.dz",
          "127.0.0.1",
          "::1"
        ]) {
          const error = yield* Effect.flip(Egress.resolvePublic(host))
          assert.strictEqual(error._tag, "BlockedEgress", host)
          assert.notInclude(error.message, "10.0.0.1")
        }
      }).pipe(Effect.provide(resolver))
    )

    it.effect("refuses localhost through the system resolver", () =>
      Effect.gen(function* () {
        const error = yield* Effect.flip(Egress.resolvePublic("localhost"))
        assert.strictEqual(error._tag, "BlockedEgress")
      }).pipe(Effect.provide(Egress.Resolver.layer))
    )
  })

  describe("checkRequestUrl", () => {
    const exact: Egress.Allowance = { kind: "exact", origin: dhd }
    const tenantAllowance: Egress.Allowance = { kind: "tenant", domain: tenant }

    it("accepts URLs on the allowed host, any path and query", () => {
      for (const url of ["https://platform.dhd-dz.com/api/v1/get/wilayas?x=1", "https://platform.dhd-dz.com:443/"]) {
        assert.deepStrictEqual(Egress.checkRequestUrl(new URL(url), exact), Result.void, url)
      }
      for (const url of ["https://a.ecotrack.dz/api/v1/create/order", "https://A.B.Ecotrack.dz/"]) {
        assert.deepStrictEqual(Egress.checkRequestUrl(new URL(url), tenantAllowance), Result.void, url)
      }
    })

    it("refuses other hosts, schemes, ports, credentials and IP literals", () => {
      for (const url of [
        "https://dhd.ecotrack.dz/",
        "https://platform.dhd-dz.com.evil.com/",
        "https://evil.com/",
        "http://platform.dhd-dz.com/",
        "https://platform.dhd-dz.com:8443/",
        "https://platform.dhd-dz.com./",
        "https://user:pw@platform.dhd-dz.com/",
        "https://127.0.0.1/",
        "https://[::1]/",
        "ftp://platform.dhd-dz.com/"
      ]) {
        assertBlocked(Egress.checkRequestUrl(new URL(url), exact), url)
      }
      for (const url of [
        "https://ecotrack.dz/",
        "https://a.ecotrack.dz.evil.com/",
        "https://evilecotrack.dz/",
        "https://a.ecotrack.dz./",
        "https://a.ecotrack.dz:80/",
        "http://a.ecotrack.dz/",
        "https://u@a.ecotrack.dz/",
        "https://2130706433/"
      ]) {
        assertBlocked(Egress.checkRequestUrl(new URL(url), tenantAllowance), url)
      }
    })
  })

  describe("requestUrl", () => {
    it("builds URLs from paths relative to the pinned origin", () => {
      const url = Result.getOrThrow(Egress.requestUrl(dhd, "/api/v1/get/orders?page=2"))
      assert.strictEqual(url.href, "https://platform.dhd-dz.com/api/v1/get/orders?page=2")
    })

    it("refuses anything that is not a path on the origin", () => {
      for (const path of ["//evil.com/x", "/\\evil.com", "https://evil.com/", "api/v1", "", "/a b", "/a\nb"]) {
        assertBlocked(Egress.requestUrl(dhd, path), path)
      }
    })
  })

  describe("parseOverrides", () => {
    it("reads exact and tenant-wildcard overrides to loopback origins", () => {
      const overrides = Result.getOrThrow(
        Egress.parseOverrides(
          "https://platform.dhd-dz.com=http://127.0.0.1:9001, https://*.ecotrack.dz=http://127.0.0.1:9002," +
            "https://special.ecotrack.dz=http://[::1]:9003,https://app.conexlog-dz.com=https://localhost:9004/"
        )
      )
      assert.strictEqual(overrides.size, 4)
      assert.strictEqual(Egress.overrideFor(overrides, dhd), "http://127.0.0.1:9001")
      assert.strictEqual(Egress.overrideFor(overrides, origin("https://a.ecotrack.dz")), "http://127.0.0.1:9002")
      assert.strictEqual(Egress.overrideFor(overrides, origin("https://a.b.ecotrack.dz")), "http://127.0.0.1:9002")
      assert.strictEqual(Egress.overrideFor(overrides, origin("https://special.ecotrack.dz")), "http://[::1]:9003")
      assert.strictEqual(Egress.overrideFor(overrides, origin("https://app.conexlog-dz.com")), "https://localhost:9004")
      assert.isUndefined(Egress.overrideFor(overrides, origin("https://ecotrack.dz")))
      assert.isUndefined(Egress.overrideFor(overrides, origin("https://api.yalidine.app")))
    })

    it("reads nothing when unset or blank", () => {
      for (const value of [undefined, "", " , "]) {
        assert.strictEqual(Result.getOrThrow(Egress.parseOverrides(value)).size, 0)
      }
    })

    it("refuses targets that are not loopback and keys that are not origins, without echoing them", () => {
      for (const value of [
        "https://platform.dhd-dz.com=http://10.0.0.1:9001",
        "https://platform.dhd-dz.com=http://example.com:9001",
        "https://platform.dhd-dz.com=http://127.0.0.1.nip.io:9001",
        "https://platform.dhd-dz.com=http://[::ffff:127.0.0.1]:9001",
        "https://platform.dhd-dz.com=ftp://127.0.0.1:9001",
        "https://platform.dhd-dz.com=http://127.0.0.1:9001/api",
        `https://platform.dhd-dz.com=http://user:${secret}@127.0.0.1:9001`,
        `https://user:${secret}@platform.dhd-dz.com=http://127.0.0.1:9001`,
        "https://platform.dhd-dz.com=",
        "https://platform.dhd-dz.com",
        "https://platform.dhd-dz.com=http://127.0.0.1:9001=x",
        "http://platform.dhd-dz.com=http://127.0.0.1:9001",
        "https://127.0.0.1=http://127.0.0.1:9001",
        "https://platform.dhd-dz.com/api=http://127.0.0.1:9001",
        "https://*=http://127.0.0.1:9001",
        "https://*.dz=http://127.0.0.1:9001",
        "https://a.*.ecotrack.dz=http://127.0.0.1:9001",
        "https://platform.dhd-dz.com=http://127.0.0.1:9001,https://PLATFORM.dhd-dz.com/=http://127.0.0.1:9002"
      ]) {
        const result = Egress.parseOverrides(value)
        assert.isTrue(Result.isFailure(result), value)
        if (Result.isFailure(result)) {
          assert.strictEqual(result.failure._tag, "InvalidOverrides")
          assert.notInclude(result.failure.message, secret)
        }
      }
    })
  })

  it.effect("reports a resolver that fails (not a missing name) as a resolution failure", () =>
    Effect.gen(function* () {
      const failing = Layer.succeed(Egress.Resolver, {
        lookup: (host: string) => Effect.fail(new Egress.ResolutionFailed({ host, code: "EAI_AGAIN" }))
      })
      const error = yield* Effect.flip(Egress.resolvePublic("platform.dhd-dz.com").pipe(Effect.provide(failing)))
      assert.strictEqual(error._tag, "ResolutionFailed")
    })
  )

  it("refuses request paths whose dot segments normalise into another host", () => {
    const origin = Result.getOrThrow(Egress.parseOrigin("https://platform.dhd-dz.com"))
    for (const path of ["/.//evil.com/x", "/a/..//evil.com/x", "/%2e//evil.com"]) {
      assert.isTrue(Result.isFailure(Egress.requestUrl(origin, path)), path)
    }
  })
})
