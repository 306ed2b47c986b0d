import MCloudCore
import MCloudYAML

extension Decoder {
    func cdn(_ spec: YAMLNode, _ metadata: Metadata) -> CDN? {
        let keys = ["origins", "audiences", "trafficGiBMonth", "cache"]
        guard let fields = mapping(spec, "spec", keys: keys, required: ["origins", "trafficGiBMonth"]) else { return nil }
        let origins = fields["origins"].flatMap { names($0, "spec.origins", nonEmpty: true) }
        let audiences = fields["audiences"].map { names($0, "spec.audiences", nonEmpty: true) }
        let traffic = fields["trafficGiBMonth"].flatMap { number($0, "spec.trafficGiBMonth") }
        let cache = fields["cache"].map { self.cacheRules($0) } ?? []
        guard let origins, audiences != .some(nil), let traffic, let cache else { return nil }
        return CDN(name: metadata.name, origins: origins, audiences: audiences ?? nil, trafficGiBMonth: traffic, cache: cache, location: metadata.location)
    }

    private func cacheRules(_ node: YAMLNode) -> [CDN.CacheRule]? {
        guard let items = list(node, "spec.cache") else { return nil }
        var rules: [CDN.CacheRule] = []
        var seen: [String: SourceLocation] = [:]
        var valid = true
        for item in items {
            guard let fields = mapping(item.node, item.path, keys: ["path", "ttlSeconds"], required: ["path", "ttlSeconds"]) else {
                valid = false
                continue
            }
            let path = fields["path"].flatMap { httpPath($0, fields.path("path")) }
            let ttl = fields["ttlSeconds"].flatMap { int($0, fields.path("ttlSeconds"), max: 31_536_000) }
            guard let path, let ttl else {
                valid = false
                continue
            }
            if let first = seen[path], let node = fields["path"] {
                error(node.location, "\(fields.path("path")): a rule for \"\(path)\" is already defined at \(first)")
                valid = false
                continue
            }
            seen[path] = fields["path"]?.location
            rules.append(CDN.CacheRule(path: path, ttlSeconds: ttl))
        }
        return valid ? rules : nil
    }
}
