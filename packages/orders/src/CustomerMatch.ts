/**
 * How an order finds its customer (spec "Customer handling on order create"): by store and phone. The phone is kept
 * and matched as sent with its spaces removed, so "0555 12 34 56" and "0555123456" are one customer, while "+213…"
 * and "0…" stay two (no further normalisation: the spec keeps the number as sent). A new customer keeps the whole
 * name in `first_name` and an empty `last_name`; a match has `first_name`, wilaya, commune, address (when sent) and
 * email (when sent, not empty) overwritten and keeps everything else, the order counters included: API orders never
 * touch `total_orders` or `total_spent`.
 */

/** The phone as stored and matched: the sent text without its spaces. */
export const phoneKey = (phone: string): string => phone.replaceAll(" ", "")

/** The customer fields an order carries. `address` absent means "not sent"; `email` null means "not sent". */
export interface Sent {
  readonly name: string
  readonly phone: string
  readonly email: string | null
  readonly wilaya_id: number
  readonly commune: string
  readonly address: string | undefined
}

export interface Fields {
  readonly first_name: string
  readonly last_name: string
  readonly phone: string
  readonly email: string | null
  readonly wilaya_id: number
  readonly commune: string
  readonly address: string
}

/** A customer made from an order. */
export const created = (sent: Sent): Fields => ({
  first_name: sent.name,
  last_name: "",
  phone: phoneKey(sent.phone),
  email: sent.email,
  wilaya_id: sent.wilaya_id,
  commune: sent.commune,
  address: sent.address ?? ""
})

/** A matched customer after an order. */
export const matched = <C extends Fields>(existing: C, sent: Sent): C => ({
  ...existing,
  first_name: sent.name,
  wilaya_id: sent.wilaya_id,
  commune: sent.commune,
  address: sent.address ?? existing.address,
  email: sent.email ?? existing.email
})
