import MCloudCore
import MCloudDatabaseEngines
import MCloudProvider
import MCloudViews

/// `mcloud catalog offers`: each cloud's managed engines as its catalog entry lists them (`offers.dbaas`) beside what
/// its API sells, compared by series (`16`, `8.0`), since catalogs list series and APIs releases (`16.4`, `8.0.39`).
/// In the command line, not MCloudViews: which engines count is the engine catalog's.
enum OffersView {
    /// One engine of one cloud.
    struct Row: Sendable, Hashable {
        var engine: String
        /// nil: the catalog does not list the engine; empty: it lists it without versions (any version).
        var catalog: [String]?
        /// The series the API sells, sorted; nil when it sells none.
        var api: [String]?

        /// What differs, in a reader's words; nil when the two agree.
        var difference: String? {
            guard let catalog else { return "sold, not in offers.dbaas" }
            guard let api else { return "the API sells no \(engine)" }
            if catalog.isEmpty { return "offers.dbaas takes any version; the API sells only these" }
            let notSold = catalog.filter { listed in !api.contains { EngineVersion.covers(offered: listed, wanted: $0) } }
            let notListed = api.filter { sold in !catalog.contains { EngineVersion.covers(offered: $0, wanted: sold) } }
            let parts = [
                notSold.isEmpty ? nil : "listed, not sold: \(notSold.joined(separator: ", "))",
                notListed.isEmpty ? nil : "sold, not listed: \(notListed.joined(separator: ", "))",
            ].compactMap { $0 }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        }
    }

    /// One cloud: its rows, or why it could not be read.
    struct CloudOffers: Sendable, Hashable {
        var cloud: String
        var source: String
        var rows: [Row]
        var failure: String? = nil

        var differs: Bool { rows.contains { $0.difference != nil } }

        /// What the API sells written as `offers.dbaas`, for the operator to copy what they mean to sell.
        var soldAsCatalog: String {
            let sold = rows.compactMap { row in row.api.map { "\(row.engine): [\($0.map { "\"\($0)\"" }.joined(separator: ", "))]" } }
            return sold.isEmpty ? "[]" : "{ \(sold.joined(separator: ", ")) }"
        }
    }

    /// The catalog's engines in its order, then the engines the API sells that mcloud knows (another API datastore,
    /// such as Trove's cassandra, is nothing a manifest could ask for).
    static func compare(_ cloud: Cloud, _ offers: ManagedOffers) -> CloudOffers {
        let sold = offers.versions
        let others = sold.keys.filter { !cloud.offers.dbaas.contains($0) && Engine(named: $0) != nil }.sorted()
        let rows = (cloud.offers.dbaas + others).map { engine in
            let series = sold[engine].map { versions in Set(versions.map { EngineVersion.series($0, engine: engine) }).sorted(by: ascending) }
            let catalog = cloud.offers.dbaas.contains(engine) ? cloud.offers.dbaasVersions[engine] ?? [] : nil
            return Row(engine: engine, catalog: catalog, api: series)
        }
        return CloudOffers(cloud: cloud.name, source: offers.source, rows: rows)
    }

    static func render(_ clouds: [CloudOffers]) -> String {
        var text = ""
        for cloud in clouds {
            if let failure = cloud.failure {
                text += "\(cloud.cloud): not read: \(failure)\n\n"
                continue
            }
            text += "\(cloud.cloud): \(cloud.source)\n"
            if cloud.rows.isEmpty {
                text += "  no managed engines in the catalog or the API\n\n"
                continue
            }
            var rows = [["ENGINE", "CATALOG", "API", "DIFFERENCE"]]
            for row in cloud.rows {
                let catalog = row.catalog.map { $0.isEmpty ? "any version" : $0.joined(separator: ", ") } ?? "-"
                rows.append([row.engine, catalog, row.api?.joined(separator: ", ") ?? "-", row.difference ?? "in step"])
            }
            text += PlacementView.table(rows)
            if cloud.differs { text += "  as the API sells it: dbaas: \(cloud.soldAsCatalog)\n" }
            text += "\n"
        }
        let read = clouds.filter { $0.failure == nil }
        guard !read.isEmpty else { return text + "No cloud could be read.\n" }
        let differing = read.filter(\.differs).count
        let unread = clouds.count - read.count
        let counted = "\(read.count) cloud\(read.count == 1 ? "" : "s") read"
        text += differing == 0 ? "The catalog's managed offers match the API of \(counted)" : "\(differing) of \(counted) \(differing == 1 ? "differs" : "differ") from the catalog"
        return text + (unread == 0 ? ".\n" : "; \(unread) could not be read.\n")
    }

    /// Versions by their numbers, so `9.6` comes before `10` and `8.4` before `10.11`.
    private static func ascending(_ left: String, _ right: String) -> Bool {
        let a = left.split(separator: ".").map { Int($0) ?? 0 }, b = right.split(separator: ".").map { Int($0) ?? 0 }
        return a.lexicographicallyPrecedes(b)
    }
}
