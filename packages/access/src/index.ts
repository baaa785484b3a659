/** Who may call the store API: platform keys, public keys, app tokens, scopes, plan and pilot gates, rate limits, quotas and usage; KeyStore and UsageStore ports (memory and SQL). */
export {}
