/**
 * The real types of query and path parameters in the OpenAPI documents. On the URL every value is a string, and
 * effect's document says so (`{ "type": "string" }` for a wilaya code or a page size); what a caller means and what
 * the API reads is the decoded value: an integer code, a page size, a literal. This transform gives each parameter
 * the JSON Schema of its decoded type, so the reference, the generated `fetch` client and any OpenAPI tool type
 * `code` as the integer it is. The wire does not change: values still travel as text.
 */
import { Schema } from "effect"
import { type HttpApi, type HttpApiEndpoint, type HttpApiGroup, OpenApi } from "effect/http-api"

type Fields = Readonly<Record<string, Schema.Top>>

/** The declared fields of a parameter struct (behind the string codec the endpoint keeps). */
const fieldsOf = (codec: unknown): Fields => {
  const declared = (codec as { readonly schema?: { readonly fields?: Fields } } | undefined)?.schema
  return declared?.fields ?? {}
}

type JsonSchema = { readonly [key: string]: unknown }

const SAFE = Number.MAX_SAFE_INTEGER

/**
 * Without what a URL cannot carry anyway: a number's non-finite spellings (`"NaN"`, `"Infinity"`) and the safe-integer
 * bounds every integer has.
 */
const plain = (schema: JsonSchema): JsonSchema => {
  const anyOf = schema.anyOf as ReadonlyArray<JsonSchema> | undefined
  if (anyOf !== undefined) {
    const kept = anyOf.filter(
      (member) => !(member.type === "string" && JSON.stringify(member.enum) === '["Infinity","-Infinity","NaN"]')
    )
    if (kept.length === 1) return plain(kept[0]!)
  }
  const { minimum, maximum, ...rest } = schema
  return {
    ...rest,
    ...(minimum === undefined || minimum === -SAFE ? {} : { minimum }),
    ...(maximum === undefined || maximum === SAFE ? {} : { maximum })
  }
}

/** A field's decoded type as JSON Schema; undefined when it would need definitions of its own. */
const jsonSchemaOf = (field: Schema.Top): JsonSchema | undefined => {
  const document = Schema.toJsonSchemaDocument(Schema.toType(field))
  return Object.keys(document.definitions ?? {}).length === 0 ? plain(document.schema as JsonSchema) : undefined
}

type Spec = { readonly paths?: Record<string, Record<string, OpenApiOperation>> } & Record<string, unknown>
interface OpenApiOperation {
  readonly operationId?: string
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string; readonly schema?: unknown }>
}

/** The API with its OpenAPI document's query and path parameters typed as they decode. */
export const described = <Api extends HttpApi.Constraint>(api: Api): Api =>
  (api as unknown as HttpApi.Top).annotateMerge(
    OpenApi.annotations({
      transform: (spec) => {
        const byOperation = new Map<string, { readonly query: Fields; readonly path: Fields }>()
        for (const group of Object.values((api as unknown as HttpApi.Top).groups) as ReadonlyArray<HttpApiGroup.Top>) {
          for (const endpoint of Object.values(group.endpoints) as ReadonlyArray<HttpApiEndpoint.Top>) {
            byOperation.set(`${group.identifier}.${endpoint.identifier}`, {
              query: fieldsOf(endpoint.query),
              path: fieldsOf(endpoint.params)
            })
          }
        }
        const paths = (spec as Spec).paths ?? {}
        return {
          ...spec,
          paths: Object.fromEntries(
            Object.entries(paths).map(([path, methods]) => [
              path,
              Object.fromEntries(
                Object.entries(methods).map(([method, operation]) => {
                  const declared = byOperation.get(operation.operationId ?? "")
                  if (declared === undefined || operation.parameters === undefined) return [method, operation]
                  const parameters = operation.parameters.map((parameter) => {
                    const fields =
                      parameter.in === "query" ? declared.query : parameter.in === "path" ? declared.path : {}
                    const field = fields[parameter.name]
                    const schema = field === undefined ? undefined : jsonSchemaOf(field)
                    return schema === undefined ? parameter : { ...parameter, schema }
                  })
                  return [method, { ...operation, parameters }]
                })
              )
            ])
          )
        }
      }
    })
  ) as unknown as Api
