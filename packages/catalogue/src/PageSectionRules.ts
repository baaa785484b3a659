/**
 * The rules of landing page section bodies, as pure functions (docs/store-api-config.md, "Landing page sections").
 *
 * A create reads, in order: the body an object (`InvalidSectionBody`), `type` (`InvalidSectionType`), `position`
 * (`InvalidPosition`), `is_visible` (`InvalidSectionBody`), `settings` (`InvalidSettings`); the first failure
 * answers. A PATCH refuses `type` and `position` first (`ImmutableField`), then reads `is_visible` and `settings`.
 * A reorder's `section_ids` must name every section of the page exactly once (`InvalidSectionOrder`).
 *
 * Settings are free-form for the storefront, and bounded so that every one fits PostgreSQL's `jsonb` as sent and a
 * change record many times over: a JSON object of at most `MAX_SETTINGS_BYTES` and `MAX_SETTINGS_DEPTH` levels,
 * whose strings and keys are `StoreText` (no NUL character, no lone surrogate), whose keys have 1 to
 * `MAX_KEY_LENGTH` characters, and whose numbers are within ±`StoreAmount.MAXIMUM`, the store API's bound for
 * amounts (a price shown in an offer block is one; a countdown's seconds fit too).
 */
import { StoreAmount, StoreText } from "@tawsil/domain"
import { Effect } from "effect"
import { SECTION_TYPES, type SectionType, type Settings } from "./PageSection.ts"
import * as PageSectionError from "./PageSectionError.ts"

/** The most sections a landing page holds. */
export const MAX_SECTIONS = 50
/** The most bytes of a section's settings, as JSON text in UTF-8. */
export const MAX_SETTINGS_BYTES = 65_536
/** The deepest nesting of a section's settings, the settings object itself being level 1. */
export const MAX_SETTINGS_DEPTH = 8
/** The longest key in a section's settings, in characters. */
export const MAX_KEY_LENGTH = 100

const MAX_NUMBER = Number(StoreAmount.MAXIMUM_TEXT)

export const BODY_MESSAGE = "Body must be a JSON object"
export const TYPE_MESSAGE = `type must be one of ${SECTION_TYPES.join(", ")}`
export const IS_VISIBLE_MESSAGE = "is_visible must be true or false"
export const positionMessage = (end: number) =>
  end === 1 ? "position must be 1 (the page has no sections)" : `position must be a whole number from 1 to ${end}`
export const immutableMessage = (field: string) =>
  field === "type"
    ? "type cannot be changed: delete the section and add one of the new type"
    : "position cannot be changed by PATCH: reorder the page's sections with POST /v1/landing-pages/{id}/sections/reorder"
export const limitMessage = (count: number) =>
  `A landing page holds at most ${MAX_SECTIONS} sections; this one has ${count}`

const refuse = (reason: PageSectionError.PageSectionErrorReason) => Effect.fail(PageSectionError.fail(reason))

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** What is wrong with a section's settings, as the caller's message; `undefined` when nothing is. */
export const settingsProblem = (value: unknown): string | undefined => {
  if (!isObject(value)) return "settings must be a JSON object"
  const bytes = Buffer.byteLength(JSON.stringify(value), "utf8")
  if (bytes > MAX_SETTINGS_BYTES) {
    return `settings must be at most ${MAX_SETTINGS_BYTES} bytes as JSON (these are ${bytes})`
  }
  const walk = (node: unknown, path: string, depth: number): string | undefined => {
    if (typeof node === "string") {
      return StoreText.isStorable(node) ? undefined : `${path} must be text without NUL characters or lone surrogates`
    }
    if (typeof node === "number") {
      return Number.isFinite(node) && Math.abs(node) <= MAX_NUMBER
        ? undefined
        : `${path} must be a number between -${StoreAmount.MAXIMUM_TEXT} and ${StoreAmount.MAXIMUM_TEXT}`
    }
    if (typeof node === "boolean" || node === null) return undefined
    if (typeof node !== "object") return `${path} must be JSON`
    if (depth > MAX_SETTINGS_DEPTH) return `${path} nests deeper than ${MAX_SETTINGS_DEPTH} levels`
    if (Array.isArray(node)) {
      for (const [index, child] of node.entries()) {
        const problem = walk(child, `${path}[${index}]`, depth + 1)
        if (problem !== undefined) return problem
      }
      return undefined
    }
    for (const [key, child] of Object.entries(node)) {
      const length = [...key].length
      if (!StoreText.isStorable(key) || length < 1 || length > MAX_KEY_LENGTH) {
        return `${path} has a key that is not 1 to ${MAX_KEY_LENGTH} characters of text without NUL characters or lone surrogates`
      }
      const problem = walk(child, `${path}.${key}`, depth + 1)
      if (problem !== undefined) return problem
    }
    return undefined
  }
  return walk(value, "settings", 1)
}

/** JSON text of a value with every object's keys sorted, so that two objects compare whatever their key order. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, node: unknown) =>
    isObject(node)
      ? Object.fromEntries(
          Object.keys(node)
            .sort()
            .map((key) => [key, node[key]])
        )
      : node
  )

/** Whether two JSON values are the same, keys in any order (as `jsonb` keeps them). */
export const sameJson = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b)

/** The settings, or `InvalidSettings`. */
export const readSettings = (value: unknown) => {
  const problem = settingsProblem(value)
  return problem === undefined
    ? Effect.succeed(value as Settings)
    : refuse(new PageSectionError.InvalidSettings({ message: problem }))
}

/** The body as an object, or `InvalidSectionBody`. */
export const bodyObject = (body: unknown) =>
  isObject(body) ? Effect.succeed(body) : refuse(new PageSectionError.InvalidSectionBody({ message: BODY_MESSAGE }))

/** A section type, trimmed and in any letter case; `undefined` when it names none. */
export const typeOf = (raw: unknown): SectionType | undefined => {
  if (typeof raw !== "string") return undefined
  const text = raw.trim().toLowerCase()
  return SECTION_TYPES.find((type) => type === text)
}

const visibility = (raw: unknown) =>
  typeof raw === "boolean"
    ? Effect.succeed(raw)
    : refuse(new PageSectionError.InvalidSectionBody({ message: IS_VISIBLE_MESSAGE }))

/** What a create writes, its place apart. */
export interface NewSection {
  readonly type: string
  readonly is_visible: boolean
  readonly settings: Settings
}

/**
 * A create body on a page of `count` sections: the new section and its 0-based index in the page's order (the end
 * unless `position` says otherwise).
 */
export const parseCreate = Effect.fnUntraced(function* (body: unknown, count: number) {
  const fields = yield* bodyObject(body)
  const type = typeOf(fields.type)
  if (type === undefined) return yield* refuse(new PageSectionError.InvalidSectionType({ message: TYPE_MESSAGE }))
  let index = count
  if (fields.position !== undefined) {
    const position = fields.position
    if (typeof position !== "number" || !Number.isInteger(position) || position < 1 || position > count + 1) {
      return yield* refuse(new PageSectionError.InvalidPosition({ message: positionMessage(count + 1) }))
    }
    index = position - 1
  }
  const is_visible = fields.is_visible === undefined ? true : yield* visibility(fields.is_visible)
  const settings = fields.settings === undefined ? {} : yield* readSettings(fields.settings)
  return { section: { type, is_visible, settings } satisfies NewSection, index }
})

/** What a PATCH changes: the fields it sent. */
export interface SectionPatch {
  readonly is_visible?: boolean
  readonly settings?: Settings
}

export const parsePatch = Effect.fnUntraced(function* (body: unknown) {
  const fields = yield* bodyObject(body)
  for (const field of ["type", "position"]) {
    if (field in fields) return yield* refuse(new PageSectionError.ImmutableField({ message: immutableMessage(field) }))
  }
  const patch: { is_visible?: boolean; settings?: Settings } = {}
  if (fields.is_visible !== undefined) patch.is_visible = yield* visibility(fields.is_visible)
  if (fields.settings !== undefined) patch.settings = yield* readSettings(fields.settings)
  return patch as SectionPatch
})

/** A reorder body against the page's section ids (in their current order): the new order. */
export const parseOrder = Effect.fnUntraced(function* (body: unknown, current: ReadonlyArray<number>) {
  const fields = yield* bodyObject(body)
  const ids = fields.section_ids
  const wrong = (message: string) => refuse(new PageSectionError.InvalidSectionOrder({ message }))
  const expected = `section_ids must list each of the page's ${current.length} section ids exactly once`
  if (!Array.isArray(ids)) return yield* wrong(`${expected}, as an array`)
  const known = new Set(current)
  const seen = new Set<number>()
  for (const [index, id] of ids.entries()) {
    if (typeof id !== "number" || !known.has(id)) {
      return yield* wrong(`section_ids[${index}] is not a section of this page; ${expected}`)
    }
    if (seen.has(id)) return yield* wrong(`section_ids[${index}] repeats section ${id}; ${expected}`)
    seen.add(id)
  }
  if (seen.size !== known.size) {
    const missing = current.filter((id) => !seen.has(id))
    return yield* wrong(`section_ids leaves out ${missing.join(", ")}; ${expected}`)
  }
  return ids as ReadonlyArray<number>
})

/**
 * The order an undo of a reorder writes: `recorded` (section ids, top first, resolved to the sections' current ids;
 * those gone are left out) over the page's `current` order. Sections the record does not name (added since) keep
 * their places; the recorded ones fill the other places in the recorded order.
 */
export const restoredOrder = (
  current: ReadonlyArray<number>,
  recorded: ReadonlyArray<number>
): ReadonlyArray<number> => {
  const named = new Set(recorded.filter((id) => current.includes(id)))
  const queue = [...new Set(recorded)].filter((id) => named.has(id))
  return current.map((id) => (named.has(id) ? queue.shift()! : id))
}
