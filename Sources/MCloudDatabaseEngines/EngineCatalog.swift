/// Every recipe mcloud has: which engine series runs on which image family, and how. Manifest validation and the
/// planner ask it whether a cell can be delivered on a cloud's VMs; both IaaS providers take the recipe from it and
/// turn it into cloud-init with `DatabaseUserData`.
public enum EngineCatalog {
    public static let recipes: [Recipe] = PostgreSQLRecipes.all + PostgresProRecipes.all + MySQLRecipes.all + RedisRecipes.all
        + ClickHouseRecipes.all + MongoDBRecipes.all

    private static let index: [String: [Recipe]] = Dictionary(grouping: recipes) { "\($0.engine.rawValue) \($0.family.rawValue)" }

    /// The recipe for a manifest's engine (aliases allowed) and version on a family; nil when there is none.
    public static func recipe(engine: String, version: String, family: ImageFamily) -> Recipe? {
        guard let engine = Engine(named: engine) else { return nil }
        return index["\(engine.rawValue) \(family.rawValue)"]?.first { $0.covers(version) }
    }

    /// The series an engine has recipes for on a family, in the catalog's order (oldest first).
    public static func series(engine: String, family: ImageFamily) -> [String] {
        guard let engine = Engine(named: engine) else { return [] }
        return index["\(engine.rawValue) \(family.rawValue)"]?.map(\.series) ?? []
    }

    /// `13, 14, 15, 16, 17 on debian-12; 14, ... on ubuntu-22.04`: what a version error lists.
    public static func supportedVersions(engine: String, families: [ImageFamily]) -> String {
        families.sorted().compactMap { family in
            let series = series(engine: engine, family: family)
            return series.isEmpty ? nil : "\(series.joined(separator: ", ")) on \(family.rawValue)"
        }.joined(separator: "; ")
    }
}
