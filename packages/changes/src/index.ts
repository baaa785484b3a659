/** Change history and undo: every recorded write's before and after values, and an engine that writes them back through an entity's own checks; ChangeStore port (memory and SQL). */
export * as Change from "./Change.ts"
export * as ChangeError from "./ChangeError.ts"
export * as ChangeLog from "./ChangeLog.ts"
export * as ChangeStore from "./ChangeStore.ts"
export * as ChangeStoreSql from "./ChangeStoreSql.ts"
export * as Changes from "./Changes.ts"
export * as Entity from "./Entity.ts"
export * as Fields from "./Fields.ts"
