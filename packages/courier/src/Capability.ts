/**
 * What an adapter can do, by name: the operations it may implement (`operations`), and `push` — it reads what its
 * courier pushes to a merchant's receiver (`Push`). An adapter's `capabilities` are those it does.
 */
export const operations = [
  "create",
  "track",
  "rates",
  "label",
  "cancel",
  "dispatch",
  "trackBatch",
  "createBatch",
  "stopDesks",
  "communes",
  "checkCredentials"
] as const

export type OperationName = (typeof operations)[number]

export const capabilities = [...operations, "push"] as const

export type Capability = (typeof capabilities)[number]
