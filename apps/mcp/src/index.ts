/** An MCP server over Tawsil's shipping and store APIs (docs/mcp.md). */
export * as Apis from "./Apis.ts"
export * as ShippingTools from "./ShippingTools.ts"
export * as StoreKey from "./StoreKey.ts"
export * as StoreTools from "./StoreTools.ts"
export * as TawsilMcp from "./TawsilMcp.ts"
export * as ToolFailure from "./ToolFailure.ts"
