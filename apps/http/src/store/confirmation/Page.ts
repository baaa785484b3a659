/**
 * The customer's confirmation page (docs/confirmation.md), in Arabic (right to left) or French: the order's lines and
 * total with Confirm and Cancel as two plain HTML forms, or what became of the link. No script, no outside resource,
 * no store key: the only credential is the link's token, in the page's query string and its forms' bodies (never in a
 * path, which access logs keep). Every answer carries a strict
 * Content-Security-Policy (nothing but this page's one stylesheet, forms posting to this origin only), is never
 * cached, sends no referrer (the address holds the token) and cannot be framed.
 */
import { createHash } from "node:crypto"
import type { Confirmation } from "@tawsil/orders"
import { HttpServerResponse } from "effect/http"

export type Language = "ar" | "fr"

/** `?lang=` when it names one, else the first of Arabic or French `Accept-Language` prefers, else Arabic. */
export const languageOf = (query: string | null, acceptLanguage: string | undefined): Language => {
  if (query === "ar" || query === "fr") return query
  const ranked = (acceptLanguage ?? "")
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().toLowerCase().split(";")
      const q = params.map((param) => param.trim()).find((param) => param.startsWith("q="))
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q.slice(2)) || 0, index }
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
  for (const { tag } of ranked) {
    if (tag === "ar" || tag.startsWith("ar-")) return "ar"
    if (tag === "fr" || tag.startsWith("fr-")) return "fr"
  }
  return "ar"
}

const texts = {
  ar: {
    dir: "rtl",
    title: "تأكيد الطلب",
    heading: "أكّد طلبك",
    intro: (number: string) => `الطلب رقم ${number}. راجع المنتجات والمجموع، ثم أكّد الطلب أو ألغِه.`,
    product: "المنتج",
    quantity: "الكمية",
    price: "السعر",
    shipping: "التوصيل",
    discount: "الخصم",
    total: "المجموع",
    currency: "د.ج",
    confirm: "تأكيد الطلب",
    cancel: "إلغاء الطلب",
    confirmed: (number: string) => `شكرًا! تم تأكيد طلبك ${number}.`,
    cancelled: (number: string) => `تم إلغاء طلبك ${number}.`,
    used: "تم استخدام هذا الرابط من قبل.",
    usedConfirmed: "لقد تم تأكيد الطلب.",
    usedCancelled: "لقد تم إلغاء الطلب.",
    expired: "انتهت صلاحية هذا الرابط. اتصل بالمتجر لتأكيد طلبك.",
    closed: "لم يعد من الممكن تأكيد هذا الطلب أو إلغاؤه عبر هذا الرابط.",
    invalid: "هذا الرابط غير صالح.",
    other: { lang: "fr", name: "Français" }
  },
  fr: {
    dir: "ltr",
    title: "Confirmation de commande",
    heading: "Confirmez votre commande",
    intro: (number: string) =>
      `Commande n° ${number}. Vérifiez les articles et le total, puis confirmez ou annulez la commande.`,
    product: "Article",
    quantity: "Quantité",
    price: "Prix",
    shipping: "Livraison",
    discount: "Remise",
    total: "Total",
    currency: "DA",
    confirm: "Confirmer la commande",
    cancel: "Annuler la commande",
    confirmed: (number: string) => `Merci ! Votre commande ${number} est confirmée.`,
    cancelled: (number: string) => `Votre commande ${number} est annulée.`,
    used: "Ce lien a déjà été utilisé.",
    usedConfirmed: "La commande a été confirmée.",
    usedCancelled: "La commande a été annulée.",
    expired: "Ce lien a expiré. Contactez la boutique pour confirmer votre commande.",
    closed: "Cette commande ne peut plus être confirmée ni annulée par ce lien.",
    invalid: "Ce lien n'est pas valide.",
    other: { lang: "ar", name: "العربية" }
  }
} as const

const STYLE =
  "body{font-family:system-ui,sans-serif;margin:0;background:#f6f6f4;color:#1d1d1b}" +
  "main{max-width:32rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:.5rem}" +
  "table{width:100%;border-collapse:collapse;margin:1rem 0}th,td{padding:.4rem;border-bottom:1px solid #ddd;text-align:start}" +
  "tfoot td{font-weight:600}.actions{display:flex;gap:.75rem;flex-wrap:wrap}" +
  "button{font:inherit;padding:.7rem 1.2rem;border:0;border-radius:.4rem;cursor:pointer}" +
  "#confirm{background:#17803d;color:#fff}#cancel{background:#eee;color:#8a1c1c}nav{margin-bottom:1rem}"

const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64")

/** The policy of every page: this stylesheet and nothing else; forms to this origin only; no frame, no base. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${STYLE_HASH}'`,
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'"
].join("; ")

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (character) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[character] as string
  )

const money = (amount: number, language: Language) => `${amount.toFixed(2)} ${texts[language].currency}`

/** The HTTP status each page is answered with. */
const statusOf = (page: Confirmation.LinkPage): number => {
  switch (page._tag) {
    case "Open":
    case "Answered":
      return 200
    case "Used":
    case "Expired":
      return 410
    case "Closed":
      return 409
    case "Invalid":
      return 404
  }
}

const body = (page: Confirmation.LinkPage, language: Language, action: string, token: string): string => {
  const t = texts[language]
  const message = (text: string) => `<p id="message">${escapeHtml(text)}</p>`
  switch (page._tag) {
    case "Open": {
      const { order } = page
      const rows = order.lines
        .map(
          (line) =>
            `<tr><td>${escapeHtml(line.name)}</td><td>${line.quantity}</td><td>${money(line.price * line.quantity, language)}</td></tr>`
        )
        .join("")
      const extra = [
        order.shipping_cost === 0
          ? ""
          : `<tr><td colspan="2">${t.shipping}</td><td>${money(order.shipping_cost, language)}</td></tr>`,
        order.discount === 0
          ? ""
          : `<tr><td colspan="2">${t.discount}</td><td>-${money(order.discount, language)}</td></tr>`
      ].join("")
      const form = (answer: "confirm" | "cancel", label: string) =>
        `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="token" value="${escapeHtml(token)}">` +
        `<input type="hidden" name="answer" value="${answer}">` +
        `<button type="submit" id="${answer}">${label}</button></form>`
      return (
        `<h1>${t.heading}</h1>${message(t.intro(order.order_number))}` +
        `<table><thead><tr><th>${t.product}</th><th>${t.quantity}</th><th>${t.price}</th></tr></thead>` +
        `<tbody>${rows}</tbody><tfoot>${extra}<tr><td colspan="2">${t.total}</td><td id="total">${money(order.total, language)}</td></tr></tfoot></table>` +
        `<div class="actions">${form("confirm", t.confirm)}${form("cancel", t.cancel)}</div>`
      )
    }
    case "Answered":
      return `<h1>${t.title}</h1>${message(
        page.answer === "confirmed" ? t.confirmed(page.order_number) : t.cancelled(page.order_number)
      )}`
    case "Used": {
      const what =
        page.answer === "confirmed" ? t.usedConfirmed : page.answer === "customer_cancelled" ? t.usedCancelled : ""
      return `<h1>${t.title}</h1>${message(`${t.used} ${what}`.trim())}`
    }
    case "Expired":
      return `<h1>${t.title}</h1>${message(t.expired)}`
    case "Closed":
      return `<h1>${t.title}</h1>${message(t.closed)}`
    case "Invalid":
      return `<h1>${t.title}</h1>${message(t.invalid)}`
  }
}

/** The state a page shows, for the page's `data-state` (tests and styling read it). */
const stateOf = (page: Confirmation.LinkPage) =>
  page._tag === "Answered" ? (page.answer === "confirmed" ? "confirmed" : "cancelled") : page._tag.toLowerCase()

/**
 * The page as an answer; `path` is the page's own path (the forms post to it with the token in their bodies, the
 * language link carries the token in its query string).
 */
export const render = (page: Confirmation.LinkPage, language: Language, path: string, token: string) => {
  const t = texts[language]
  const action = `${path}?lang=${language}`
  // A link that is not valid is not echoed back, not even in the language link.
  const carried = page._tag === "Invalid" ? "" : `token=${encodeURIComponent(token)}&`
  const other = `${path}?${carried}lang=${t.other.lang}`
  const html =
    `<!doctype html><html lang="${language}" dir="${t.dir}"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">` +
    `<title>${t.title}</title><style>${STYLE}</style></head><body>` +
    `<main data-state="${stateOf(page)}"><nav><a id="language" href="${escapeHtml(other)}" hreflang="${t.other.lang}" lang="${t.other.lang}">${t.other.name}</a></nav>` +
    `${body(page, language, action, token)}</main></body></html>`
  return HttpServerResponse.text(html, {
    status: statusOf(page),
    contentType: "text/html; charset=utf-8",
    headers: {
      "content-security-policy": CONTENT_SECURITY_POLICY,
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "content-language": language
    }
  })
}
