/**
 * The host of courier adapters and the shipping API's flow: the courier core (`Shipping`) over the egress-guarded
 * transport (`HttpTransport`) and the pace it keeps each courier account to (`CourierPacer`), the couriers it serves
 * (`Catalogue`), the plugins it finds (`Discovery`), events mapped through an adapter's tables (`Tracking`); and
 * around them the gateway, its per-client window and its capacity guard.
 */
export * as AdapterMemories from "./AdapterMemories.ts"
export * as Answers from "./Answers.ts"
export * as CapacityGuard from "./CapacityGuard.ts"
export * as Catalogue from "./Catalogue.ts"
export * as ClientWindow from "./ClientWindow.ts"
export * as CommuneCheck from "./CommuneCheck.ts"
export * as CommuneLists from "./CommuneLists.ts"
export * as CourierPacer from "./CourierPacer.ts"
export * as Discovery from "./Discovery.ts"
export * as Door from "./Door.ts"
export * as Gateway from "./Gateway.ts"
export * as HttpTransport from "./HttpTransport.ts"
export * as LabelSheet from "./LabelSheet.ts"
export * as RateComparison from "./RateComparison.ts"
export * as Shipping from "./Shipping.ts"
export * as Tracking from "./Tracking.ts"
