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
  Contact as ContactSchema,
  CURRENCY_SYMBOLS,
  CurrencyDisplay as CurrencySchema,
  fromRecord,
  SocialLinks as SocialLinksSchema,
  type SocialNetwork,
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

/** Who writes: the store and the key's id (recorded on the change). */
export interface Writer {
  readonly storeId: Ids.StoreId
  readonly keyId: string | null
}

export const BODY = BodyFields.OBJECT_MESSAGE
const PATH_RULE = "a path such as stores/12/logo.png (letters, digits, . _ - and /, at most 500 characters), or null"
const PHONE = /^\+?[0-9 ]{6,20}$/
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/

const phone = Fields.readNullableString(
  (text) => (PHONE.test(text.trim()) ? text.replace(/ /g, "") : undefined),
  Fields.isEmpty,
  "must be 6 to 20 digits (spaces and a leading + allowed), or null"
)

const EMAIL_RULE = `must be an email address of at most ${EMAIL_MAX} characters, or null`

const email = Fields.readNullableString(
  (text) => {
    const trimmed = Fields.trimmedOf(EMAIL_MAX)(text)
    return trimmed !== undefined && EMAIL.test(trimmed) ? trimmed : undefined
  },
  Fields.isBlank,
  EMAIL_RULE
)

const SOCIAL_RULE = "must be an https URL of a public host, without credentials, of at most 500 characters, or null"

/**
 * `PATCH /v1/store` body: any of these; only sent fields change (`contact`, `social_links` and `currency` key by
 * key). Its fields are checked in this order, the first that fails answering with its message.
 */
export const SettingsPatch = Schema.Struct({
  /** 1 to 100 characters (trimmed). */
  name: Schema.optionalKey(Fields.Text(NAME_MAX, `must be 1 to ${NAME_MAX} characters`)),
  /** Up to 1000 characters; null or `""` clears it. */
  description: Schema.optionalKey(
    Fields.OptionalText(DESCRIPTION_MAX, `must be a string of at most ${DESCRIPTION_MAX} characters, or null`)
  ),
  /** `ar` or `fr`: the storefront's language (theme titles, the default texts). */
  language: Schema.optionalKey(StoreLanguage.pipe(BodyFields.oneMessage("must be ar or fr"))),
  /**
   * Paths of files already on the store's CDN (`stores/12/logo.png`): letters, digits, `. _ - /`, up to 500
   * characters; null or `""` removes it.
   */
  logo: Schema.optionalKey(Fields.OptionalPath(`must be ${PATH_RULE}`)),
  favicon: Schema.optionalKey(Fields.OptionalPath(`must be ${PATH_RULE}`)),
  banner: Schema.optionalKey(Fields.OptionalPath(`must be ${PATH_RULE}`)),
  /**
   * Key by key: `phone` and `whatsapp` 6 to 20 digits (spaces and a leading `+` allowed; stored without spaces),
   * `email` up to 254 characters, `address` up to 255, `wilaya_id` 1 to 58; null or `""` clears one.
   */
  contact: Schema.optionalKey(
    Fields.Group(
      {
        phone: Schema.optionalKey(phone),
        whatsapp: Schema.optionalKey(phone),
        email: Schema.optionalKey(email),
        address: Schema.optionalKey(
          Fields.OptionalText(ADDRESS_MAX, `must be a string of at most ${ADDRESS_MAX} characters, or null`)
        ),
        wilaya_id: Schema.optionalKey(Fields.OptionalInteger(1, 58, "must be 1-58, or null"))
      },
      "must be an object"
    )
  ),
  /** Key by key, `https` URLs up to 500 characters; null or `""` clears one. */
  social_links: Schema.optionalKey(
    Fields.Group(
      {
        facebook: Schema.optionalKey(Fields.OptionalHttpsUrl(SOCIAL_RULE)),
        instagram: Schema.optionalKey(Fields.OptionalHttpsUrl(SOCIAL_RULE)),
        tiktok: Schema.optionalKey(Fields.OptionalHttpsUrl(SOCIAL_RULE)),
        youtube: Schema.optionalKey(Fields.OptionalHttpsUrl(SOCIAL_RULE))
      } satisfies Record<SocialNetwork, unknown>,
      "must be an object"
    )
  ),
  /** Key by key: `symbol` `DA`, `DZD` or `د.ج`; `position` `before` or `after`; `decimals` 0 or 2. */
  currency: Schema.optionalKey(
    Fields.Group(
      {
        symbol: Schema.optionalKey(Fields.OneOf(CURRENCY_SYMBOLS, `must be ${CURRENCY_SYMBOLS.join(", ")}`)),
        position: Schema.optionalKey(Fields.OneOf(["before", "after"], "must be before or after")),
        decimals: Schema.optionalKey(Fields.OneOf([0, 2], "must be 0 or 2"))
      },
      "must be an object"
    )
  )
}).annotate({ identifier: "StoreSettingsPatch", ...BodyFields.objectMessage })

const decodePatch = BodyFields.decode(SettingsPatch, ({ text }) => text)

/**
 * The settings after `body`, read over `current`, or the message of the first field that breaks its rule. An undo
 * passes its recorded settings as the body: the same checks.
 */
export const apply = Effect.fnUntraced(function* (current: SettingsState, body: unknown) {
  const patch = yield* decodePatch(body)
  return {
    ...current,
    ...patch,
    contact: { ...current.contact, ...patch.contact },
    social_links: { ...current.social_links, ...patch.social_links },
    currency: { ...current.currency, ...patch.currency }
  } satisfies SettingsState
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
