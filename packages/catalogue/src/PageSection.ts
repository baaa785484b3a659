/**
 * A landing page's section as the store API shows it (docs/store-api-config.md, "Landing page sections"), the
 * bodies that create, change and reorder sections, and the forms the change history records them in (`lp.section`).
 *
 * A section is one block of a cash-on-delivery landing page — a hero, the product showcase, benefits, testimonials,
 * an FAQ, a countdown, the order form… — with its place on the page (`position`, 1 for the top), whether buyers see
 * it (`is_visible`) and its `settings`: a JSON object the storefront renders the block from (texts, image paths,
 * amounts, questions and answers). The type is fixed at creation.
 */
import { AlgiersTime, Ids } from "@tawsil/domain"
import { Schema, Struct } from "effect"

export const PageSectionId = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).pipe(Schema.brand("PageSectionId"))
export type PageSectionId = typeof PageSectionId.Type

/**
 * The section types a write may create, in the order a landing page usually stacks them. Sections the dashboard
 * made may carry other types: they are shown as they are.
 */
export const SECTION_TYPES = [
  "hero",
  "product_showcase",
  "benefits",
  "testimonials",
  "faq",
  "countdown",
  "order_form",
  "video",
  "image",
  "gallery",
  "text",
  "guarantee",
  "delivery_info",
  "call_to_action"
] as const
export type SectionType = (typeof SECTION_TYPES)[number]

/** A section's settings: a JSON object (bounded: `PageSectionRules.settingsProblem`). */
export const Settings = Schema.Record(Schema.String, Schema.Unknown).annotate({
  description:
    "A JSON object of at most 65536 bytes and 8 levels: strings without NUL characters or lone surrogates, " +
    "numbers between -100000000 and 100000000, keys of 1 to 100 characters"
})
export type Settings = typeof Settings.Type

export class PageSection extends Schema.Class<PageSection>("LandingPageSection")({
  id: PageSectionId,
  landing_page_id: Ids.LandingPageId,
  /** One of `SECTION_TYPES` (a section the dashboard made may have another); fixed at creation. */
  type: Schema.String,
  /** Its place on the page: 1 is the top, the last is the number of sections. */
  position: Schema.Int,
  /** False keeps the section and hides it from buyers. */
  is_visible: Schema.Boolean,
  settings: Settings,
  created_at: AlgiersTime.SqlTimestamp,
  updated_at: AlgiersTime.SqlTimestamp
}) {}

/** `GET /v1/landing-pages/{id}/sections` and a reorder's answer: every section of the page, top first. */
export const PageSectionList = Schema.Struct({ items: Schema.Array(PageSection) }).annotate({
  identifier: "LandingPageSectionList"
})
export type PageSectionList = typeof PageSectionList.Type

/** The answer of a delete. */
export const PageSectionDeleted = Schema.Struct({ deleted: Schema.Literal(true), id: PageSectionId }).annotate({
  identifier: "LandingPageSectionDeleted"
})
export type PageSectionDeleted = typeof PageSectionDeleted.Type

/** A section as its store keeps it: the wire form, and the ids it had before undos brought it back. */
export interface StoredSection {
  readonly section: PageSection
  /**
   * The ids of the deleted sections this one is the return of (an undo of a delete writes a new id): the change
   * history still reaches the section by them.
   */
  readonly formerIds: ReadonlyArray<number>
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies, as documented (`PageSections` reads them field by field with their codes)

/** `POST /v1/landing-pages/{id}/sections` body. */
export const PageSectionCreateBody = Schema.Struct({
  /** One of `SECTION_TYPES`, any letter case (422 `invalid_section_type`). */
  type: Schema.String,
  /** 1 (the top) to the number of sections plus 1 (the end, the default) (422 `invalid_position`). */
  position: Schema.optionalKey(Schema.Int),
  /** Default true; a JSON boolean. */
  is_visible: Schema.optionalKey(Schema.Boolean),
  /** Default `{}` (422 `invalid_settings`). */
  settings: Schema.optionalKey(Settings)
}).annotate({ identifier: "LandingPageSectionCreate" })

/**
 * `PATCH /v1/landing-pages/{id}/sections/{section_id}` body: only sent fields change, `settings` as a whole. `type`
 * and `position` are refused (422 `immutable_field`): a section's place changes with a reorder.
 */
export const PageSectionPatchBody = Schema.Struct({
  is_visible: Schema.optionalKey(Schema.Boolean),
  settings: Schema.optionalKey(Settings)
}).annotate({ identifier: "LandingPageSectionPatch" })

/** `POST /v1/landing-pages/{id}/sections/reorder` body: every section id of the page once, top first. */
export const PageSectionReorderBody = Schema.Struct({ section_ids: Schema.Array(Schema.Int) }).annotate({
  identifier: "LandingPageSectionReorder"
})

// ---------------------------------------------------------------------------------------------------------------
// Recorded forms (`lp.section`)

/** What a section's change records: its wire form and `former_ids`. */
export const SectionValues = Schema.Struct({
  id: Schema.Int,
  landing_page_id: Schema.Int,
  type: Schema.String,
  position: Schema.Int,
  is_visible: Schema.Boolean,
  settings: Settings,
  created_at: AlgiersTime.SqlTimestamp,
  former_ids: Schema.Array(Schema.Int)
}).annotate({ identifier: "LandingPageSectionValues" })
export type SectionValues = typeof SectionValues.Type

/**
 * What a section's change records: the whole section (a create, a delete), or what an update changed
 * (`is_visible`, `settings`) with the section's `id` and page (never `updated_at`, which every write moves).
 */
export const RecordedSection = SectionValues.mapFields((fields) => ({
  ...Struct.map(fields, Schema.optionalKey),
  id: fields.id,
  landing_page_id: fields.landing_page_id
}))
export type RecordedSection = typeof RecordedSection.Type

/** How `lp.section` changes lay out their values: `id` and `landing_page_id` always; `updated_at` never. */
export const LAYOUT = { kept: ["id", "landing_page_id"], ignored: ["updated_at"] }

/** What a reorder records (entity id `lp:<page id>`): the page and its section ids, top first. */
export const OrderValues = Schema.Struct({
  landing_page_id: Schema.Int,
  section_ids: Schema.Array(Schema.Int)
}).annotate({ identifier: "LandingPageSectionOrder" })
export type OrderValues = typeof OrderValues.Type

const encodeSection = Schema.encodeSync(PageSection)

/** A section as its changes record it. */
export const snapshot = (stored: StoredSection) => ({ ...encodeSection(stored.section), former_ids: stored.formerIds })

/** A page's order as a reorder records it. */
export const orderSnapshot = (pageId: number, sections: ReadonlyArray<StoredSection>): OrderValues => ({
  landing_page_id: pageId,
  section_ids: sections.map((stored) => stored.section.id)
})

/** The entity id of a page's order. */
export const orderEntityId = (pageId: number) => `lp:${pageId}`
