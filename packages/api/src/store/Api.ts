/**
 * The merchant store API (spec: store-api-core.md, store-api-config.md), assembled from its resources: each folder
 * here holds one resource's endpoints, the failures they answer and their handlers. This is what the server
 * (`HttpApiBuilder`), the OpenAPI document and the docs page are built from.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { HealthGroup } from "../Health.ts"
import * as Parameters from "../Parameters.ts"
import { AccessGroup } from "./access/Api.ts"
import { CategoriesGroup } from "./categories/Api.ts"
import { ChangesGroup } from "./changes/Api.ts"
import { CodGroup } from "./cod/Api.ts"
import { ConfirmationGroup, ConfirmationPageGroup } from "./confirmation/Api.ts"
import { CustomersGroup } from "./customers/Api.ts"
import { DesignGroup } from "./design/Api.ts"
import { HomeLayoutGroup } from "./home-layout/Api.ts"
import { HomeSectionsGroup } from "./home-sections/Api.ts"
import { LandingPageSectionsGroup } from "./landing-page-sections/Api.ts"
import { LandingPagesGroup } from "./landing-pages/Api.ts"
import { OrdersGroup } from "./orders/Api.ts"
import { PingGroup } from "./ping/Api.ts"
import { PixelsGroup } from "./pixels/Api.ts"
import { ProductsGroup } from "./products/Api.ts"
import { StoreGroup } from "./profile/Api.ts"
import { PromoCodesGroup } from "./promo-codes/Api.ts"
import { CourierReportsGroup, RiskGroup } from "./risk/Api.ts"
import { CourierHooksGroup, ShipmentsGroup } from "./shipments/Api.ts"
import { ShippingGroup } from "./shipping/Api.ts"
import { StockGroup } from "./stock/Api.ts"
import { ThemesGroup } from "./themes/Api.ts"
import { TrackerGroup } from "./tracker/Api.ts"
import { WebhooksGroup } from "./webhooks/Api.ts"

export class StoreApi extends Parameters.described(
  HttpApi.make("store")
    .add(PingGroup)
    .add(AccessGroup)
    .add(OrdersGroup)
    .add(CustomersGroup)
    .add(ProductsGroup)
    .add(StockGroup)
    .add(CategoriesGroup)
    .add(LandingPagesGroup)
    .add(LandingPageSectionsGroup)
    .add(StoreGroup)
    .add(DesignGroup)
    .add(HomeSectionsGroup)
    .add(HomeLayoutGroup)
    .add(WebhooksGroup)
    .add(TrackerGroup)
    .add(PromoCodesGroup)
    .add(ThemesGroup)
    .add(PixelsGroup)
    .add(ShippingGroup)
    .add(ShipmentsGroup)
    .add(CourierHooksGroup)
    .add(ChangesGroup)
    .add(RiskGroup)
    .add(CourierReportsGroup)
    .add(CodGroup)
    .add(ConfirmationGroup)
    .add(ConfirmationPageGroup)
    .add(HealthGroup)
    .annotateMerge(
      OpenApi.annotations({
        title: "Tawsil store API",
        version: "v1",
        description:
          "Orders, customers, products, store, landing pages, keys, usage and quotas, webhooks, signups and events, " +
          "promo codes, themes, pixels, the change history, courier accounts and shipments, the COD ledger for a merchant's store. Authenticate with " +
          "`Authorization: Bearer <key_id>.<secret>`; every write needs an `Idempotency-Key`. Signups and events are " +
          "signed with a public key (`TW-Public`)."
      })
    )
) {}
