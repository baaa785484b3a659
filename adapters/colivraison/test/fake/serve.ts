/**
 * Runs the fake on its own, for trying the plugin in a host by hand: `node test/fake/serve.ts <token> [port]`
 * prints `{"origin":"http://127.0.0.1:<port>"}`; point `TAWSIL_COURIER_ORIGINS` at it. Ctrl-C stops it.
 */
import { start } from "./ColivraisonFake.ts"

const [token = "fake-token-0000", port = "0"] = process.argv.slice(2)
const fake = await start({ tokens: [token], port: Number(port) })
console.log(JSON.stringify({ origin: fake.origin }))
process.once("SIGINT", () => void fake.close())
