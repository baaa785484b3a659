/** The shipping API's flow: the gateway, its per-client window and its capacity guard. */
export * as CapacityGuard from "./CapacityGuard.ts"
export * as ClientWindow from "./ClientWindow.ts"
export * as Gateway from "./Gateway.ts"
