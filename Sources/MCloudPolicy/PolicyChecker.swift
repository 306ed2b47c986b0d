public import MCloudCore
import MCloudEngine
public import MCloudProvider
public import MCloudViews

/// Checks a made plan against the model's policies (docs/manifests.md, "Policy"), outside the planner: what the
/// plan costs and how that compares with the cost the state recorded, which resources it deletes or replaces, which
/// cells leave a cloud they ran on at the last apply, and where the cells of a data class run. Every rule gets a
/// verdict, passed or not, with the cells, clouds or resources a failed one is about. A placement-only plan (no
/// deployment) is judged on what the placement gives: its cost and cells; the rules about the state are not judged.
public enum PolicyChecker {
    /// `recorded` is the placement the state recorded at the last complete apply (nil without one).
    public static func check(_ model: Model, document: PlanDocument, recorded: AppliedPlacement?) -> PolicyReport {
        let context = Context(model: model, document: document, recorded: recorded)
        var verdicts: [PolicyReport.Verdict] = []
        for policy in model.policies {
            for (index, entry) in policy.rules.enumerated() {
                let result = context.evaluate(entry.rule)
                verdicts.append(PolicyReport.Verdict(
                    policy: policy.name, index: index, rule: entry.rule.name, level: entry.level, source: entry.location,
                    passed: result.passed, judged: result.judged, message: result.message, offenders: result.offenders
                ))
            }
        }
        return PolicyReport(verdicts: verdicts)
    }

    /// A rule's outcome before it is named: passed, why, and what a failure is about.
    struct Finding {
        var passed: Bool
        var judged = true
        var message: String
        var offenders: [PolicyReport.Offender] = []

        /// A rule about the state, on a placement-only plan, which read none.
        static func notJudged(_ why: String) -> Finding {
            Finding(passed: true, judged: false, message: "not judged without a state: \(why)")
        }
    }

    struct Context {
        let model: Model
        let document: PlanDocument
        let recorded: AppliedPlacement?

        var currency: String { model.application.currency }

        func evaluate(_ rule: Policy.Rule) -> Finding {
            if document.deployment == nil {
                switch rule {
                case .maxCostIncrease: return .notJudged("a placement-only plan has no cost recorded at the last apply to compare with")
                case .denyDelete: return .notJudged("a placement-only plan plans no resource changes")
                case .denyMove: return .notJudged("a placement-only plan reads no placement recorded at the last apply")
                case .maxMonthlyCost, .requireResidency: break
                }
            }
            switch rule {
            case .maxMonthlyCost(let limit): return maxMonthlyCost(limit)
            case .maxCostIncrease(let percent): return maxCostIncrease(percent)
            case .denyDelete(let kinds, let addresses): return denyDelete(kinds: kinds, addresses: addresses)
            case .denyMove(let from): return denyMove(from)
            case .requireResidency(let data, let audience, let allowed): return requireResidency(data: data, audience: audience, allowed: allowed)
            }
        }

        // MARK: Cost

        var after: CostDiff.Amounts { document.cost?.after ?? .zero }

        func maxMonthlyCost(_ limit: Double) -> Finding {
            let cost = after.monthly
            guard cost > limit else {
                return Finding(passed: true, message: "the monthly cost after this plan, \(money(cost)), is within the limit of \(money(limit))")
            }
            // Where the money goes, the largest first.
            let clouds = after.byCloud.sorted { ($0.amount, $1.name) > ($1.amount, $0.name) }
            return Finding(
                passed: false, message: "the monthly cost after this plan, \(money(cost)), is above the limit of \(money(limit)) by \(money(cost - limit))",
                offenders: clouds.map { .init(name: $0.name, detail: "\(money($0.amount)) a month") }
            )
        }

        func maxCostIncrease(_ percent: Double) -> Finding {
            let limit = "+\(NumberText.format(percent))%"
            guard let diff = document.cost, let before = diff.before, let delta = diff.delta else {
                return Finding(passed: true, message: "no cost was recorded at the last apply to compare with")
            }
            let risen = (delta.byCell.map { (name: $0.name, amount: $0.amount) } + delta.byCDN.map { (name: "\($0.name) (CDN)", amount: $0.amount) })
                .filter { $0.amount > 0 }.sorted { ($0.amount, $1.name) > ($1.amount, $0.name) }
                .map { PolicyReport.Offender(name: $0.name, detail: "+\(money($0.amount)) a month") }
            let change = "\(Money.decimals(before.monthly, places: 2)) -> \(money(diff.after.monthly))"
            guard let rise = diff.percentChange else {
                let passed = diff.after.monthly <= 0
                return Finding(
                    passed: passed, message: passed ? "the monthly cost stays at \(money(0))" : "the monthly cost rises from nothing (\(change)), more than \(limit)",
                    offenders: passed ? [] : risen
                )
            }
            // Compared as it is shown, to the hundredth of a percent: a rise printed as +10.00% passes a limit of 10.
            let shownRise = (rise * 100).rounded() / 100
            let shown = (shownRise > 0 ? "+" : "") + Money.decimals(shownRise, places: 2) + "%"
            guard shownRise > percent else {
                return Finding(passed: true, message: "the monthly cost changes by \(shown) (\(change)), within \(limit)")
            }
            return Finding(passed: false, message: "the monthly cost rises by \(shown) (\(change)), more than \(limit)", offenders: risen)
        }

        private func money(_ amount: Double) -> String {
            Money.format(amount, currency)
        }

        // MARK: Deletes

        func denyDelete(kinds: [String], addresses: [String]) -> Finding {
            let what = (kinds.map { "kind \($0)" } + addresses.map { "address \($0)" }).joined(separator: ", ")
            let offenders = (document.deployment?.changes ?? []).filter { change in
                guard change.action == .delete || change.action == .replace else { return false }
                let workload = Self.workloadKind(change)
                return kinds.contains(change.type.rawValue) || workload.map(kinds.contains) == true
                    || addresses.contains { Self.matches(change.address.rawValue, pattern: $0) }
            }.map { PolicyReport.Offender(name: $0.address.rawValue, detail: "\($0.action.rawValue): \($0.reason)") }
            guard !offenders.isEmpty else { return Finding(passed: true, message: "no resource of \(what) is deleted or replaced") }
            return Finding(passed: false, message: "\(count(offenders.count, "resource")) of \(what) would be deleted or replaced", offenders: offenders)
        }

        /// The kind of workload a resource was rendered for, from its body's labels: a Kubernetes object of a cell
        /// belongs to a Service; a CDNResource to a CDN; any other infrastructure resource of a cell to a Database.
        static func workloadKind(_ change: ResourceChange) -> String? {
            if change.type == .cdnResource { return "CDN" }
            guard let body = change.after?.body ?? change.before ?? change.recorded?.attributes, ResourceBody(body).cell != nil else { return nil }
            return change.provider == .kubernetes ? "Service" : "Database"
        }

        /// A glob where `*` stands for any run of characters, dots included: the greedy match that backs up to the
        /// last star on a mismatch, linear for one star and never exponential.
        static func matches(_ text: String, pattern: String) -> Bool {
            let text = Array(text.utf8), pattern = Array(pattern.utf8), star = UInt8(ascii: "*")
            var position = 0, next = 0
            var backup: (star: Int, position: Int)?
            while position < text.count {
                if next < pattern.count, pattern[next] == star {
                    backup = (star: next, position: position)
                    next += 1
                } else if next < pattern.count, pattern[next] == text[position] {
                    position += 1
                    next += 1
                } else if let last = backup {
                    backup = (star: last.star, position: last.position + 1)
                    position = last.position + 1
                    next = last.star + 1
                } else {
                    return false
                }
            }
            while next < pattern.count, pattern[next] == star { next += 1 }
            return next == pattern.count
        }

        // MARK: Moves

        func denyMove(_ clouds: [String]) -> Finding {
            let named = clouds.joined(separator: " or ")
            guard let recorded else { return Finding(passed: true, message: "no placement was recorded at the last apply to compare with") }
            let now = Dictionary((document.placement?.cells ?? []).map { ($0.name, $0.site) }, uniquingKeysWith: { first, _ in first })
            var offenders: [PolicyReport.Offender] = []
            for (cell, before) in recorded.cells.sorted(by: { $0.key < $1.key }) {
                // A cell no longer placed at all is a delete, which denyDelete is for.
                guard let after = now[cell] else { continue }
                let used = Set(Self.clouds(after))
                for cloud in clouds where before.clouds.contains(cloud) && !used.contains(cloud) {
                    offenders.append(.init(name: cell, detail: "leaves \(cloud): \(Self.describe(before)) -> \(Self.describe(after))"))
                }
            }
            guard !offenders.isEmpty else { return Finding(passed: true, message: "no cell leaves \(named)") }
            return Finding(passed: false, message: "\(count(Set(offenders.map(\.name)).count, "cell")) would leave \(named)", offenders: offenders)
        }

        static func clouds(_ site: PlacementReport.Site) -> [String] {
            switch site {
            case .replicas(let replicas): return replicas.filter { $0.count > 0 }.map(\.cloud)
            case .database(let primary, let backup): return [primary] + (backup.map { [$0] } ?? [])
            }
        }

        static func describe(_ site: AppliedPlacement.Site) -> String {
            switch site {
            case .replicas(let replicas): return replicas.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            case .database(let primary, let backup): return "primary \(primary)" + (backup.map { ", backup \($0)" } ?? "")
            }
        }

        static func describe(_ site: PlacementReport.Site) -> String {
            switch site {
            case .replicas(let replicas): return replicas.map { "\($0.cloud) \($0.count)" }.joined(separator: ", ")
            case .database(let primary, let backup): return "primary \(primary)" + (backup.map { ", backup \($0)" } ?? "")
            }
        }

        // MARK: Residency

        /// Restated on its own, so a residency rule edited in the Application cannot move the data unseen: every
        /// cloud a matching cell uses (replicas, primary, backup) needs a tag in `allowed`. CDNs hold no cell data.
        func requireResidency(data: String, audience: String, allowed: [String]) -> Finding {
            let classes = Dictionary(model.services.map { ($0.name, $0.data) } + model.databases.map { ($0.name, $0.data) }, uniquingKeysWith: { first, _ in first })
            let jurisdictions = Dictionary(model.clouds.map { ($0.name, $0.jurisdiction) }, uniquingKeysWith: { first, _ in first })
            let sites = Dictionary((document.placement?.cells ?? []).map { ($0.name, $0.site) }, uniquingKeysWith: { first, _ in first })
            let cells = model.cells.filter { ($0.audience == nil || $0.audience == audience) && classes[$0.workload]?.contains(data) == true }
            let subject = "\(data) data of audience \(audience)"
            var offenders: [PolicyReport.Offender] = []
            for cell in cells {
                guard let site = sites[cell.name] else { continue }
                var uses: [(role: String, cloud: String)] = []
                switch site {
                case .replicas(let replicas): uses = replicas.filter { $0.count > 0 }.map { (role: "\($0.count) replica\($0.count == 1 ? "" : "s")", cloud: $0.cloud) }
                case .database(let primary, let backup): uses = [(role: "primary", cloud: primary)] + (backup.map { [(role: "backup", cloud: $0)] } ?? [])
                }
                for use in uses {
                    let tags = jurisdictions[use.cloud] ?? []
                    guard !tags.contains(where: allowed.contains) else { continue }
                    offenders.append(.init(name: cell.name, detail: "\(use.role) on \(use.cloud), which is [\(tags.joined(separator: ", "))]"))
                }
            }
            let fence = "[\(allowed.joined(separator: ", "))]"
            guard !offenders.isEmpty else {
                return Finding(passed: true, message: cells.isEmpty ? "no cell holds \(subject)" : "every cell with \(subject) runs only in \(fence)")
            }
            return Finding(passed: false, message: "\(count(Set(offenders.map(\.name)).count, "cell")) with \(subject) would run outside \(fence)", offenders: offenders)
        }

        private func count(_ number: Int, _ noun: String) -> String {
            "\(number) \(noun)\(number == 1 ? "" : "s")"
        }
    }
}
