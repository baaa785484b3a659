/**
 * The ban list and return risk (docs/risk.md): ban and unban a customer or a phone, the store's setting for orders
 * from banned phones, an order's risk and the couriers recommended for it; and the outcomes of the store's couriers
 * per destination wilaya (`GET /v1/reports/couriers`).
 */
import { CourierOutcomes, Risk, RiskError } from "@tawsil/orders"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import * as Endpoint from "../Endpoint.ts"
import * as Errors from "../Errors.ts"
import * as Reasons from "../Reasons.ts"

export const reasons = Reasons.of(RiskError.RiskErrorReason, {
  InvalidBan: "bad_request",
  BanNotFound: "not_found",
  RiskCustomerNotFound: "not_found",
  RiskOrderNotFound: "not_found",
  InvalidRiskRequest: "bad_request"
})

const { Data, Id, ListOf, listQuery } = Endpoint
const { reads, writes } = Errors

/** A phone in a path, as the store keeps phones (no spaces); a leading `+` is sent as `%2B`. */
const PhoneParam = { phone: Schema.String }

export class RiskGroup extends HttpApiGroup.make("risk")
  .add(
    Endpoint.post("banCustomer", "/v1/customers/:id/ban", {
      params: Id,
      payload: Risk.CustomerBanBody,
      success: Data(Risk.Ban),
      error: writes,
      scope: "orders:write"
    }),
    Endpoint.del("unbanCustomer", "/v1/customers/:id/ban", {
      params: Id,
      success: Data(Risk.Unbanned),
      error: writes,
      scope: "orders:write"
    }),
    HttpApiEndpoint.get("listBans", "/v1/bans", {
      query: listQuery,
      success: ListOf(Risk.Ban),
      error: reads
    }),
    Endpoint.post("banPhone", "/v1/bans", {
      payload: Risk.PhoneBanBody,
      success: Data(Risk.Ban),
      error: writes,
      scope: "orders:write"
    }),
    Endpoint.del("unbanPhone", "/v1/bans/:phone", {
      params: PhoneParam,
      success: Data(Risk.Unbanned),
      error: writes,
      scope: "orders:write"
    }),
    HttpApiEndpoint.get("getRiskSettings", "/v1/risk/settings", {
      success: Data(Risk.Settings),
      error: reads
    }),
    Endpoint.patch("updateRiskSettings", "/v1/risk/settings", {
      payload: Risk.SettingsBody,
      success: Data(Risk.Settings),
      error: writes,
      scope: "store:write"
    }),
    HttpApiEndpoint.get("getOrderRisk", "/v1/orders/:id/risk", {
      params: Id,
      success: Data(Risk.OrderRiskView),
      error: reads
    }),
    HttpApiEndpoint.get("courierRecommendations", "/v1/orders/:id/courier-recommendations", {
      params: Id,
      success: Data(Risk.Recommendations),
      error: reads
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "risk",
      description:
        "The ban list (by customer or phone), what an order from a banned phone meets, an order's return risk and " +
        "the couriers recommended for it."
    })
  ) {}

export class CourierReportsGroup extends HttpApiGroup.make("courierReports")
  .add(
    HttpApiEndpoint.get("courierReport", "/v1/reports/couriers", {
      query: {
        /** Shipments created at or after this ISO 8601 instant (a date alone: its Algiers midnight). */
        from: Schema.optionalKey(Schema.String),
        /** Shipments created before this instant. */
        to: Schema.optionalKey(Schema.String)
      },
      success: Data(CourierOutcomes.Report),
      error: reads
    })
  )
  .middleware(Endpoint.Gate)
  .annotateMerge(
    OpenApi.annotations({
      title: "courier reports",
      description: "Delivery rate, return rate and median days to deliver per courier and destination wilaya."
    })
  ) {}
