import MCloudCore

/// The ConfigMap with the endpoints of the databases a cell uses, read by its pods as environment variables:
/// `ACCOUNTS_DB_HOST` and `ACCOUNTS_DB_PORT`; a global cell that uses a perAudience database gets one pair per
/// audience (`ACCOUNTS_DB_RU_HOST`). The host is the connection's name in the cell's namespace
/// (`accounts-db.retail-bank-ru.svc`), which the Service `ConnectionNameBuilder` renders there makes resolve to the
/// primary wherever it runs. Nil when the cell uses no database.
enum EndpointsBuilder {
    static func name(_ context: CellOnCloud) -> String { "\(context.name)-endpoints" }

    static func build(_ context: CellOnCloud) -> KubernetesObject? {
        let databases = context.topology.databaseDependencies[context.index].map { context.topology.databases[$0] }
        guard !databases.isEmpty else { return nil }
        var data: [(String, String)] = []
        for database in databases {
            let prefix = prefix(database, for: context.cell.cell)
            let dependent = Connection.Dependent(cell: context.cell.cell, cloud: context.cloud, namespace: context.namespace)
            data.append((prefix + "_HOST", Wiring.localName(database.database.name, of: database.cell, for: dependent)))
            if let port = DatabaseEndpoint.port(database) { data.append((prefix + "_PORT", String(port))) }
        }
        return KubernetesObject(
            "v1", "ConfigMap", name: name(context), namespace: context.namespace, labels: context.metadata,
            content: [("data", .sortedStrings(data))]
        )
    }

    /// A hash of the ConfigMap's data, for the pod template.
    static func hash(_ configMap: KubernetesObject) -> String {
        StableHash.hex(configMap.body["data"].map(BlockYAMLWriter.document) ?? "", digits: 16)
    }

    /// `ACCOUNTS_DB`, or `ACCOUNTS_DB_RU` for a global cell using one audience's cell of a perAudience database.
    static func prefix(_ database: Topology.DatabaseCell, for cell: Cell) -> String {
        var prefix = environmentName(database.database.name)
        if cell.audience == nil, let audience = database.cell.audience { prefix += "_" + environmentName(audience) }
        return prefix
    }

    private static func environmentName(_ name: String) -> String {
        String(name.uppercased().map { $0 == "-" ? "_" : $0 })
    }
}
