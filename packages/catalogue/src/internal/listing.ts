/**
 * The query of a store API list as the caller sent it (raw query-string values), read the spec's lenient way:
 * `limit` clamped to 1..200 (default 50), a malformed cursor restarting at the newest record, an unknown `status`
 * ignored.
 */
import { Pagination } from "@tawsil/domain"

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
