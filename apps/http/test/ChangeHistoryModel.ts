/**
 * The change history as the spec writes it (store-api-config "Change record", "Undo rules"), as a model for the
 * property of `Changes.db.test.ts`: pure, written from the spec's sentences, not from the engine.
 *
 * A store is a set of items (a promo code, the store's design, the home layout…), each holding fields. A change
 * records "the values replaced" (`before`) and "the values written" (`after`): of an update, the fields whose values
 * it changed; of a delete, the whole item, and no `after`; of an undo, the fields it wrote, and what they held.
 *
 * - Rule 1: an undo writes `before` back, and is recorded as a new change.
 * - Rule 3: only the home layout checks later changes (409 `layout_changed`): a later change of the layout that is
 *   still in effect — not undone (an undo undone since puts back what it undid), and not an undo that walked a later
 *   change back (walking back newest first always works). An undo of an older change, and a change re-applied by the
 *   undo of its undo, are later changes.
 * - Rule 4: a change can be undone once (409 `already_undone`).
 * - Rules 5 and 6: a delete's undo re-creates the item; an update's undo needs the item (422 `restore_target_missing`).
 * - Rule 8: undoing an undo applies the original change again — its `after`; none (a delete) is 422
 *   `nothing_to_restore`.
 *
 * Where the spec does not say which of two refusals answers, the model checks in this order: already undone, nothing
 * to restore, the layout's later change, the item gone. Whether a write that changes no value is recorded is not
 * the spec's either: the runner tells the model (`recordUnchanged`); such a change writes nothing when undone.
 */

export type Values = ReadonlyMap<string, unknown>

export interface ModelChange {
  readonly item: string
  readonly action: "update" | "delete"
  readonly before: Values | null
  readonly after: Values | null
  /** The change this one undid (an index into `changes`). */
  readonly undoOf: number | null
  undoneBy: number | null
}

export type Outcome =
  | { readonly status: 200 }
  | { readonly status: 409; readonly code: "already_undone" | "layout_changed" }
  | { readonly status: 422; readonly code: "nothing_to_restore" | "restore_target_missing" }

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

export class Model {
  readonly changes: Array<ModelChange> = []
  private readonly fields: ReadonlyMap<string, ReadonlyArray<string>>
  private readonly state: Map<string, unknown>
  private readonly laterChangesBlock: ReadonlySet<string>
  private readonly exists: Map<string, boolean>

  /**
   * @param fields each item's field keys
   * @param state every field's value at the start
   * @param laterChangesBlock the items whose undo a later change in effect refuses (the home layout)
   */
  constructor(
    fields: ReadonlyMap<string, ReadonlyArray<string>>,
    state: Map<string, unknown>,
    laterChangesBlock: ReadonlySet<string>
  ) {
    this.fields = fields
    this.state = state
    this.laterChangesBlock = laterChangesBlock
    this.exists = new Map([...fields.keys()].map((item) => [item, true]))
  }

  value(key: string): unknown {
    return this.state.get(key)
  }

  present(item: string): boolean {
    return this.exists.get(item) === true
  }

  /**
   * A write of `assignments` to `item`: the change it records (the fields whose values it changes, before and
   * after), or undefined when it changes none. The item must exist (else the write is the API's 404, recording
   * nothing).
   */
  write(item: string, assignments: Values): ModelChange | undefined {
    const before = new Map<string, unknown>()
    const after = new Map<string, unknown>()
    for (const [key, value] of assignments) {
      if (!same(this.state.get(key), value)) {
        before.set(key, this.state.get(key))
        after.set(key, value)
      }
    }
    if (after.size === 0) return undefined
    for (const [key, value] of after) this.state.set(key, value)
    return this.record({ item, action: "update", before, after, undoOf: null, undoneBy: null })
  }

  /** A write that changed no value and was recorded all the same: a change that writes nothing. */
  recordUnchanged(item: string): ModelChange {
    return this.record({ item, action: "update", before: new Map(), after: new Map(), undoOf: null, undoneBy: null })
  }

  /** A delete of an existing item: the whole item replaced, nothing written. */
  remove(item: string): ModelChange {
    const before = new Map((this.fields.get(item) ?? []).map((key) => [key, this.state.get(key)]))
    this.exists.set(item, false)
    return this.record({ item, action: "delete", before, after: null, undoOf: null, undoneBy: null })
  }

  /** `POST /v1/changes/{id}/undo` of `changes[index]`: its answer, and on 200 its effect and record. */
  undo(index: number): Outcome {
    const change = this.changes[index]!
    if (change.undoneBy !== null) return { status: 409, code: "already_undone" }
    let values: Values
    let recreate = false
    if (change.undoOf !== null) {
      const original = this.changes[change.undoOf]!
      if (original.after === null) return { status: 422, code: "nothing_to_restore" }
      values = original.after
    } else {
      if (change.before === null) return { status: 422, code: "nothing_to_restore" }
      values = change.before
      recreate = change.action === "delete"
    }
    if (this.laterChangesBlock.has(change.item) && this.laterChangeStands(index)) {
      return { status: 409, code: "layout_changed" }
    }
    if (!recreate && !this.present(change.item)) return { status: 422, code: "restore_target_missing" }
    const replaced = recreate ? null : new Map([...values.keys()].map((key) => [key, this.state.get(key)]))
    for (const [key, value] of values) this.state.set(key, value)
    this.exists.set(change.item, true)
    const undo = this.record({
      item: change.item,
      action: "update",
      before: replaced,
      after: values,
      undoOf: index,
      undoneBy: null
    })
    change.undoneBy = this.changes.indexOf(undo)
    return { status: 200 }
  }

  private record(change: ModelChange): ModelChange {
    this.changes.push(change)
    return change
  }

  /** Whether a change is in effect: not undone, or undone by an undo that is no longer in effect itself. */
  private inEffect(index: number): boolean {
    const by = this.changes[index]!.undoneBy
    return by === null || !this.inEffect(by)
  }

  /** Whether a change of the same item after `changes[index]` is still in effect and not a walk back past it. */
  private laterChangeStands(index: number): boolean {
    const item = this.changes[index]!.item
    return this.changes.some(
      (later, at) =>
        at > index && later.item === item && this.inEffect(at) && !(later.undoOf !== null && later.undoOf > index)
    )
  }
}
