/**
 * The store's settings (`GET /v1/store`, `PATCH /v1/store`): its name, description and language, its logo, favicon
 * and banner, how buyers reach it (`contact`), its social pages and how prices show — what a merchant's dashboard
 * has under "Settings". A PATCH is recorded in the change history (entity `store.settings`, entity id `settings`) in
 * the same transaction, the fields it changed before and after; its undo writes those fields back through the same
 * checks.
 *
 * A PATCH changes only the fields it sends (`contact`, `social_links` and `currency` key by key); the first field
 * that breaks its rule refuses the whole body (`InvalidBody`, the message naming the field). Fields the API only
 * shows (`id`, `slug`, `theme`, `subdomain`, the domain fields, `public_url`, `hide_branding`, `created_at`) and
 * unknown fields are ignored: the theme and colours are the design's (`PATCH /v1/store/design`), the domains the
 * dashboard's. A PATCH that changes nothing records nothing.
 */
import { ChangeLog } from "@tawsil/changes"
import { BodyFields, type Ids } from "@tawsil/domain"
import { ServiceSpans } from "@tawsil/tracing"
import { Context, Effect, Layer, Option, Schema, Struct } from "effect"
import * as Fields from "./internal/Fields.ts"
import {
  type Contact,
  Contact as ContactSchema,
  CURRENCY_SYMBOLS,
  type CurrencyDisplay,
  CurrencyDisplay as CurrencySchema,
  fromRecord,
  SOCIAL_NETWORKS,
  type SocialLinks,
  SocialLinks as SocialLinksSchema,
  type Store,
  StoreLanguage
} from "./Store.ts"
import { SettingsState } from "./StoreConfig.ts"
import * as StoreConfigError from "./StoreConfigError.ts"
import { StorefrontStore } from "./StorefrontStore.ts"

export const ENTITY = "store.settings"
export const ENTITY_ID = "settings"

export const NAME_MAX = 100
export const DESCRIPTION_MAX = 1000
export const ADDRESS_MAX = 255
export const EMAIL_MAX = 254

/** The store's settings as `GET /v1/store` shows them: defined beside the port (`StoreConfig`). */
export { SettingsState } from "./StoreConfig.ts"

/** How `store.settings` changes lay out their values: `contact`, `social_links` and `currency` key by key. */
export const LAYOUT = { nested: ["contact", "social_links", "currency"] }

/**
 * What `store.settings` changes record: the fields a PATCH changed (in `contact`, `social_links` and `currency`, the
 * keys it changed), before and after.
 */
export const SettingsValues = SettingsState.mapFields((fields) => ({
  ...Struct.map(fields, Schema.optionalKey),
  contact: Schema.optionalKey(ContactSchema.mapFields(Struct.map(Schema.optionalKey))),
  social_links: Schema.optionalKey(SocialLinksSchema.mapFields(Struct.map(Schema.optionalKey))),
  currency: Schema.optionalKey(CurrencySchema.mapFields(Struct.map(Schema.optionalKey)))
}))
export type SettingsValues = typeof SettingsValues.Type

/** `PATCH /v1/store` body, as documented: any of these; only sent fields change. */
export const SettingsPatch = Schema.Struct({
  /** 1 to 100 characters (trimmed). */
  name: Schema.optionalKey(Schema.String),
  /** Up to 1000 characters; null or `""` clears it. */
  description: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** `ar` or `fr`: the storefront's language (theme titles, the default texts). */
  language: Schema.optionalKey(StoreLanguage),
  /**
   * Paths of files already on the store's CDN (`stores/12/logo.png`): letters, digits, `. _ - /`, up to 500
   * characters; null or `""` removes it.
   */
  logo: Schema.optionalKey(Schema.NullOr(Schema.String)),
  favicon: Schema.optionalKey(Schema.NullOr(Schema.String)),
  banner: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /**
   * Key by key: `phone` and `whatsapp` 6 to 20 digits (spaces and a leading `+` allowed; stored without spaces),
   * `email` up to 254 characters, `address` up to 255, `wilaya_id` 1 to 58; null or `""` clears one.
   */
  contact: Schema.optionalKey(ContactSchema.mapFields(Struct.map(Schema.optionalKey))),
  /** Key by key, `https` URLs up to 500 characters; null or `""` clears one. */
  social_links: Schema.optionalKey(SocialLinksSchema.mapFields(Struct.map(Schema.optionalKey))),
  /** Key by key: `symbol` `DA`, `DZD` or `د.ج`; `position` `before` or `after`; `decimals` 0 or 2. */
  currency: Schema.optionalKey(CurrencySchema.mapFields(Struct.map(Schema.optionalKey)))
}).annotate({ identifier: "StoreSettingsPatch" })

/** Who writes: the store and the key's id (recorded on the change). */
export interface Writer {
  readonly storeId: Ids.StoreId
  readonly keyId: string | null
}

export const BODY = "Body must be a JSON object"
const PATH_RULE = "a path such as stores/12/logo.png (letters, digits, . _ - and /, at most 500 characters), or null"
const PHONE = /^\+?[0-9 ]{6,20}$/
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/

const phone = (value: unknown, name: string) => {
  const message = `contact.${name} must be 6 to 20 digits (spaces and a leading + allowed), or null`
  if (value === null || value === "") return Effect.succeed(null)
  return typeof value === "string" && PHONE.test(value.trim())
    ? Effect.succeed(value.replace(/ /g, ""))
    : Effect.fail(message)
}

const email = (value: unknown) => {
  const message = `contact.email must be an email address of at most ${EMAIL_MAX} characters, or null`
  return Effect.flatMap(Fields.optionalText(value, EMAIL_MAX, message), (text) =>
    text === null || EMAIL.test(text) ? Effect.succeed(text) : Effect.fail(message)
  )
}

/** The sent keys of a settings object (`contact`, `social_links`, `currency`) read over the current ones. */
const group = Effect.fnUntraced(function* <A extends object>(
  body: BodyFields.BodyFields,
  name: string,
  current: A,
  readers: { readonly [K in keyof A]: (value: unknown) => Effect.Effect<A[K], string> }
) {
  if (!BodyFields.sent(body, name)) return current
  const fields = yield* Fields.object(body[name], `${name} must be an object`)
  const next = { ...current }
  for (const key of Object.keys(readers) as Array<keyof A>) {
    if (BodyFields.sent(fields, key as string)) next[key] = yield* readers[key](fields[key as string])
  }
  return next
})

/**
 * The settings after `body`, read over `current`, or the message of the first field that breaks its rule. An undo
 * passes its recorded settings as the body: the same checks.
 */
export const apply = Effect.fnUntraced(function* (current: SettingsState, raw: unknown) {
  const body = yield* Fields.object(raw, BODY)
  const read = <A>(name: string, reader: (value: unknown) => Effect.Effect<A, string>, otherwise: A) =>
    BodyFields.sent(body, name) ? reader(body[name]) : Effect.succeed(otherwise)
  const name = yield* read(
    "name",
    (value) => Fields.text(value, NAME_MAX, `name must be 1 to ${NAME_MAX} characters`),
    current.name
  )
  const description = yield* read(
    "description",
    (value) =>
      Fields.optionalText(
        value,
        DESCRIPTION_MAX,
        `description must be a string of at most ${DESCRIPTION_MAX} characters, or null`
      ),
    current.description
  )
  const language = yield* read(
    "language",
    (value) => Fields.decode(StoreLanguage, value, "language must be ar or fr"),
    current.language
  )
  const path = (field: "logo" | "favicon" | "banner") =>
    read(field, (value) => Fields.optionalPath(value, `${field} must be ${PATH_RULE}`), current[field])
  const logo = yield* path("logo")
  const favicon = yield* path("favicon")
  const banner = yield* path("banner")
  const contact = yield* group<Contact>(body, "contact", current.contact, {
    phone: (value) => phone(value, "phone"),
    whatsapp: (value) => phone(value, "whatsapp"),
    email,
    address: (value) =>
      Fields.optionalText(
        value,
        ADDRESS_MAX,
        `contact.address must be a string of at most ${ADDRESS_MAX} characters, or null`
      ),
    wilaya_id: (value) => Fields.optionalInteger(value, 1, 58, "contact.wilaya_id must be 1-58, or null")
  })
  const social_links = yield* group<SocialLinks>(
    body,
    "social_links",
    current.social_links,
    Object.fromEntries(
      SOCIAL_NETWORKS.map((network) => [
        network,
        (value: unknown) =>
          Fields.optionalHttpsUrl(
            value,
            `social_links.${network} must be an https URL of a public host, without credentials, of at most 500 ` +
              "characters, or null"
          )
      ])
    ) as { readonly [K in keyof SocialLinks]: (value: unknown) => Effect.Effect<string | null, string> }
  )
  const currency = yield* group<CurrencyDisplay>(body, "currency", current.currency, {
    symbol: (value) => Fields.oneOf(value, CURRENCY_SYMBOLS, `currency.symbol must be ${CURRENCY_SYMBOLS.join(", ")}`),
    position: (value) => Fields.oneOf(value, ["before", "after"] as const, "currency.position must be before or after"),
    decimals: (value) => Fields.oneOf(value, [0, 2] as const, "currency.decimals must be 0 or 2")
  })
  return { name, description, language, logo, favicon, banner, contact, social_links, currency }
})

/** The settings fields whose values differ (`contact`, not `contact.phone`), in the body's order. */
export const changedFields = (before: SettingsState, after: SettingsState): ReadonlyArray<string> =>
  (Object.keys(after) as Array<keyof SettingsState>).filter((key) => !Fields.same(before[key], after[key]))

/** The settings part of a store. */
export const valuesOf = (store: Store | SettingsState): SettingsState => ({
  name: store.name,
  description: store.description,
  language: store.language,
  logo: store.logo,
  favicon: store.favicon,
  banner: store.banner,
  contact: store.contact,
  social_links: store.social_links,
  currency: store.currency
})

export class Settings extends Context.Service<
  Settings,
  {
    /** `GET /v1/store`: the store, or `StoreNotFound` when no such store exists. */
    readonly get: (storeId: Ids.StoreId) => Effect.Effect<Store, StoreConfigError.StoreConfigError>
    /** `PATCH /v1/store`: only sent fields change; answers the store as `get` does. */
    readonly update: (writer: Writer, body: unknown) => Effect.Effect<Store, StoreConfigError.StoreConfigError>
  }
>()("@tawsil/storefront/Settings") {}

export const layer: Layer.Layer<Settings, never, StorefrontStore | ChangeLog.ChangeLog> = Layer.effect(
  Settings,
  Effect.gen(function* () {
    const method = yield* ServiceSpans.method
    const store = yield* StorefrontStore
    const record = ChangeLog.recorder(yield* ChangeLog.ChangeLog, ENTITY, LAYOUT)

    const profile = Effect.fnUntraced(function* (storeId: Ids.StoreId) {
      const found = yield* store.profile(storeId)
      if (Option.isNone(found)) return yield* StoreConfigError.storeNotFound()
      return fromRecord(found.value)
    })

    return Settings.of({
      get: method("Settings.get")(function* (storeId) {
        return yield* profile(storeId)
      }),
      update: method("Settings.update")(function* (writer, body) {
        if (!(yield* store.lock(writer.storeId))) return yield* StoreConfigError.storeNotFound()
        const before = valuesOf(yield* profile(writer.storeId))
        const after = yield* apply(before, body).pipe(Effect.mapError(StoreConfigError.invalid))
        const changed = changedFields(before, after)
        if (changed.length === 0) return yield* profile(writer.storeId)
        if (!(yield* store.writeSettings(writer.storeId, after))) return yield* StoreConfigError.storeNotFound()
        yield* record(writer, "update", ENTITY_ID, `Updated store settings (${changed.join(", ")})`, before, after)
        return yield* profile(writer.storeId)
      })
    })
  })
)
