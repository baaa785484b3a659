/**
 * A metric's series made once per attribute set. `Metric.withAttributes` at each update builds a metric, copies the
 * fiber's context to add the attributes (a copy of every service once the context is deep, as on a request) and
 * serialises them into the series' key: on the request path, that cost more than the request's own work (issue 22).
 * A metric made with its attributes (`Metric.counter(name, { attributes })`) keeps its key; updating it is a lookup.
 * Same series in the registry either way: the registry keys a series by name, description and attributes.
 *
 * The attribute sets must be bounded (keys, outcomes, route templates): one metric is kept for each.
 */
export const series = <M>(
  make: (attributes: Readonly<Record<string, string>>) => M
): ((attributes: Readonly<Record<string, string>>) => M) => {
  const made = new Map<string, M>()
  return (attributes) => {
    const key = JSON.stringify(attributes)
    let found = made.get(key)
    if (found === undefined) {
      found = make(attributes)
      made.set(key, found)
    }
    return found
  }
}
