/** The store's catalogue and pages: products with variant groups, landing pages and their slugs, the store profile; ports (memory and SQL). */
export {}
