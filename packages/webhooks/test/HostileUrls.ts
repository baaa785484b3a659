/** Hostile webhook URLs, each with why it must be refused, and names resolving where no webhook may go. */

/** Every class of hostile URL, with the rule that refuses it. Each is also refused at delivery (Delivery.db.test.ts). */
export const hostileUrls: ReadonlyArray<readonly [url: string, why: string]> = [
  ["http://hooks.example.com/tawsil", "not https"],
  ["ftp://hooks.example.com/tawsil", "not https"],
  ["hooks.example.com/tawsil", "not absolute"],
  ["//hooks.example.com/tawsil", "not absolute"],
  ["https://127.0.0.1/hook", "an IPv4 literal (loopback)"],
  ["https://10.0.0.7/hook", "an IPv4 literal (private)"],
  ["https://169.254.169.254/latest/meta-data", "the cloud metadata address"],
  ["https://8.8.8.8/hook", "an IP literal, even a public one"],
  ["https://2130706433/hook", "loopback as one decimal number"],
  ["https://0x7f.1/hook", "loopback in hex, short form"],
  ["https://0177.0.0.1/hook", "loopback in octal"],
  ["https://[::1]/hook", "IPv6 loopback"],
  ["https://[::ffff:127.0.0.1]/hook", "IPv4-mapped IPv6 loopback"],
  ["https://[fd00:ec2::254]/hook", "IPv6 metadata (unique local)"],
  ["https://user:s3cr3t@hooks.example.com/hook", "userinfo"],
  ["https://hooks.example.com@10.0.0.7/hook", "userinfo hiding the real host"],
  ["https://hooks.example.com:8443/hook", "a port other than 443"],
  ["https://localhost/hook", "localhost"],
  ["https://api.localhost/hook", "*.localhost"],
  ["https://printer.local/hook", "mDNS .local"],
  ["https://metadata.google.internal/computeMetadata/v1", "a .internal name"],
  ["https://intranet/hook", "a single-label name"],
  ["https://hooks.example.com./hook", "a trailing dot"],
  ["https://hooks.example.com/hook#frag", "a fragment"],
  ["https://hooks.example.com/ hook", "a space"],
  ["https://hooks.example.com/hook\n", "a control character"],
  ["https://hôoks.example.com/hook", "non-ASCII"],
  [`https://hooks.example.com/${"a".repeat(2100)}`, "too long"]
]

/** Names that pass the text rules but resolve where no webhook may go (the test resolver's answers). */
export const hostileNames: Readonly<Record<string, ReadonlyArray<string>>> = {
  "loopback.example.com": ["127.0.0.1"],
  "private.example.com": ["192.168.1.20"],
  "linklocal.example.com": ["169.254.10.1"],
  "metadata.example.com": ["169.254.169.254"],
  "cgnat.example.com": ["100.64.0.1"],
  "v6-loopback.example.com": ["::1"],
  "v6-ula.example.com": ["fd12:3456::1"],
  "mixed.example.com": ["93.184.215.14", "10.0.0.1"],
  "nowhere.example.com": []
}
