/**
 * The couriers this host serves, built from the loaded adapters: one entry per courier key (spec "Courier
 * catalogue entry"), with lookup by key or alias and the list endpoint's filters. Building it checks that keys and
 * aliases are unique across adapters; a clash refuses the whole catalogue (fail closed).
 */

import { CatalogueEntry } from "@tawsil/courier/CatalogueEntry"
import type * as CourierAdapter from "@tawsil/courier/CourierAdapter"
import { type Capability, type CourierManifest, InvalidAdapter } from "@tawsil/courier/CourierAdapter"

export { CatalogueEntry }

export interface Resolved {
  readonly entry: CatalogueEntry
  readonly manifest: CourierManifest
  readonly adapter: CourierAdapter.Any
}

export interface Catalogue {
  readonly entries: ReadonlyArray<CatalogueEntry>
  /** By key or alias, case-insensitive. */
  readonly resolve: (keyOrAlias: string) => Resolved | undefined
  /** By platform, and by `q`: part of the key, name or any alias, ignoring case, spaces, `_`, `-` and `.`. */
  readonly list: (filter: {
    readonly platform?: string | undefined
    readonly q?: string | undefined
  }) => ReadonlyArray<CatalogueEntry>
}

const entryOf = (adapter: CourierAdapter.Any, manifest: CourierManifest) =>
  new CatalogueEntry({
    key: manifest.key,
    name: manifest.name,
    platform: adapter.platform,
    aliases: manifest.aliases,
    requiredCredentials: adapter.requiredCredentials,
    capabilities: adapter.capabilities as Readonly<Record<Capability, boolean>>,
    endpoint:
      "origin" in manifest.endpoint ? manifest.endpoint.origin : `https://<tenant>.${manifest.endpoint.tenantDomain}`,
    requiresBaseUrl: "tenantDomain" in manifest.endpoint,
    ...("tenantDomain" in manifest.endpoint ? { tenantDomain: manifest.endpoint.tenantDomain } : {})
  })

/**
 * A name as `?q=` compares it: lowercase, without spaces, underscores, hyphens or dots, so that `MSM Go`, `msm_go`
 * and `msmgo` all find the same courier whichever spelling its key and aliases use.
 */
const searchable = (name: string) => name.toLowerCase().replace(/[\s_.-]+/g, "")

/** Throws `InvalidAdapter` when two couriers share a key or an alias. */
export const make = (adapters: ReadonlyArray<CourierAdapter.Any>): Catalogue => {
  const byName = new Map<string, Resolved>()
  const entries: Array<CatalogueEntry> = []
  for (const adapter of adapters) {
    for (const manifest of adapter.couriers) {
      const resolved = { entry: entryOf(adapter, manifest), manifest, adapter }
      for (const name of [manifest.key, ...manifest.aliases]) {
        const clash = byName.get(name)
        if (clash) {
          throw new InvalidAdapter({
            platform: adapter.platform,
            problem: `courier name ${JSON.stringify(name)} is already taken by ${clash.entry.platform}/${clash.entry.key}`
          })
        }
        byName.set(name, resolved)
      }
      entries.push(resolved.entry)
    }
  }
  entries.sort((a, b) => a.key.localeCompare(b.key))
  return {
    entries,
    resolve: (keyOrAlias) => byName.get(keyOrAlias.trim().toLowerCase()),
    list: ({ platform, q }) => {
      const needle = q === undefined ? "" : searchable(q)
      return entries.filter(
        (entry) =>
          (platform === undefined || entry.platform === platform.trim().toLowerCase()) &&
          (needle === "" || [entry.key, entry.name, ...entry.aliases].some((name) => searchable(name).includes(needle)))
      )
    }
  }
}
