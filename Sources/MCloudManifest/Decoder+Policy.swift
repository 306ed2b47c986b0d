import MCloudCore
import MCloudYAML

extension Decoder {
    func policy(_ spec: YAMLNode, _ metadata: Metadata) -> Policy? {
        guard let fields = mapping(spec, "spec", keys: ["rules"], required: ["rules"]), let node = fields["rules"],
              let items = list(node, "spec.rules")
        else { return nil }
        if items.isEmpty {
            error(node.location, "spec.rules must list at least one rule")
            return nil
        }
        let entries = items.map { policyRule($0.node, $0.path) }
        guard entries.allSatisfy({ $0 != nil }) else { return nil }
        return Policy(name: metadata.name, rules: entries.compactMap { $0 }, location: metadata.location)
    }

    /// One entry of `spec.rules`: exactly one rule key and its `level`.
    private func policyRule(_ node: YAMLNode, _ path: String) -> Policy.Entry? {
        guard let fields = mapping(node, path, keys: Policy.Rule.names + ["level"], required: ["level"]) else { return nil }
        let level = fields["level"].flatMap { choice($0, fields.path("level"), as: Policy.Level.self) }
        let given = fields.values.map(\.key).filter { $0 != "level" }
        guard given.count == 1, let key = given.first, let value = fields[key] else {
            // A misspelt rule key was reported as unknown, with its suggestion; the rule is not said missing too.
            let written = node.mapping?.count ?? 0
            if given.isEmpty, written > fields.values.count { return nil }
            let found = given.isEmpty ? "" : "; found \(given.joined(separator: " and "))"
            error(node.location, "\(path): a rule has exactly one of \(Policy.Rule.names.joined(separator: ", "))\(found)")
            return nil
        }
        let rulePath = fields.path(key)
        let rule: Policy.Rule?
        switch key {
        case "maxMonthlyCost":
            rule = number(value, rulePath).map(Policy.Rule.maxMonthlyCost)
        case "maxCostIncrease":
            rule = number(value, rulePath).map { .maxCostIncrease(percent: $0) }
        case "denyDelete":
            rule = denyDelete(value, rulePath)
        case "denyMove":
            let move = mapping(value, rulePath, keys: ["from"], required: ["from"])
            rule = move?["from"].flatMap { names($0, move?.path("from") ?? rulePath, nonEmpty: true) }.map { .denyMove(from: $0) }
        default:
            rule = requireResidency(value, rulePath)
        }
        guard let rule, let level else { return nil }
        return Policy.Entry(rule: rule, level: level, location: node.location)
    }

    private func denyDelete(_ node: YAMLNode, _ path: String) -> Policy.Rule? {
        guard let fields = mapping(node, path, keys: ["kinds", "addresses"]) else { return nil }
        guard fields["kinds"] != nil || fields["addresses"] != nil else {
            error(node.location, "\(path) needs kinds or addresses (or both)")
            return nil
        }
        let known = Policy.workloadKinds + Policy.resourceKinds
        var kinds: [String]? = []
        if let node = fields["kinds"] {
            kinds = strings(node, fields.path("kinds"), nonEmpty: true)
            for item in kinds == nil ? [] : list(node, fields.path("kinds")) ?? [] {
                // Other scalars were reported by strings(); a name that never matches would be a guard that never fires.
                guard case .string(let kind)? = item.node.scalar?.resolved, !known.contains(kind) else { continue }
                let hint = Suggestion.closest(to: kind, in: known).map { "; did you mean \"\($0)\"?" } ?? " (kinds: \(known.joined(separator: ", ")))"
                error(item.node.location, "\(item.path): \"\(kind)\" is not a kind mcloud renders\(hint)")
                kinds = nil
            }
        }
        let addresses = fields["addresses"].map { strings($0, fields.path("addresses"), nonEmpty: true) } ?? []
        guard let kinds, let addresses else { return nil }
        return .denyDelete(kinds: kinds, addresses: addresses)
    }

    private func requireResidency(_ node: YAMLNode, _ path: String) -> Policy.Rule? {
        guard let fields = mapping(node, path, keys: ["data", "audience", "allowed"], required: ["data", "audience", "allowed"]) else { return nil }
        let data = fields["data"].flatMap { name($0, fields.path("data")) }
        let audience = fields["audience"].flatMap { name($0, fields.path("audience")) }
        let allowed = fields["allowed"].flatMap { tags($0, fields.path("allowed"), nonEmpty: true) }
        guard let data, let audience, let allowed else { return nil }
        return .requireResidency(data: data, audience: audience, allowed: allowed)
    }
}
