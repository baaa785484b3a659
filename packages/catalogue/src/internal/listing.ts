/**
 * The query of a store API list as the caller sent it (raw query-string values), read the spec's lenient way:
 * `limit` clamped to 1..200 (default 50), a malformed cursor restarting at the newest record, an unknown `status`
 * ignored.
 */
import { Pagination } from "@tawsil/domain"
import { INT4_MAX } from "./fields.ts"

export interface ListParams {
  readonly limit?: string | number | undefined
  readonly cursor?: string | undefined
  readonly status?: string | undefined
}

export const listQuery = <Status extends string>(params: ListParams, statuses: ReadonlyArray<Status>) => {
  const limit = Pagination.limitOf(params.limit === undefined ? undefined : String(params.limit))
  return {
    limit,
    afterId: Pagination.afterIdOf(params.cursor),
    status: statuses.find((status) => status === params.status)
  }
}

/** Whether an id can name a row at all: larger ids cannot be stored, so they name nothing. */
export const isStorableId = (id: number): boolean => Number.isSafeInteger(id) && id >= 1 && id <= INT4_MAX
