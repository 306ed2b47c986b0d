public import MCloudCore

extension PlacementPlan {
    /// The `placement` object of cli.md's plan JSON; the bench checker reads the same shape.
    public var placementJSON: JSONValue {
        var cells: [(String, JSONValue)] = []
        for service in services {
            let replicas = JSONValue.object(service.replicas.map { ($0.cloud, .int($0.count)) })
            cells.append((service.cell, .object([("kind", .string("Service")), ("replicas", replicas)])))
        }
        for database in databases {
            var fields: [(String, JSONValue)] = [("kind", .string("Database")), ("primary", .string(database.primary))]
            if let backup = database.backup { fields.append(("backup", .string(backup))) }
            cells.append((database.cell, .object(fields)))
        }
        cells.sort { $0.0 < $1.0 }
        let cost = JSONValue.object([
            ("currency", .string(self.cost.currency)),
            ("monthly", .rounded(self.cost.monthly)),
            ("byCloud", .object(self.cost.byCloud.map { ($0.cloud, .rounded($0.amount)) })),
            ("byCell", .object(self.cost.byCell.map { ($0.cell, .rounded($0.amount)) })),
            ("byCDN", .object(self.cost.byCDN.map { ($0.name, .rounded($0.amount)) })),
            ("lowerBound", .rounded(self.cost.lowerBound)),
            ("gap", .rounded(self.cost.gap)),
        ])
        return .object([
            ("cells", .object(cells)),
            ("cdn", .object(cdns.map { ($0.name, .string($0.cloud)) })),
            ("cost", cost),
        ])
    }

    /// `explanations`: for every cell, every unused cloud and all its reasons.
    public var explanationsJSON: JSONValue {
        .object(explanations.map { explanation in
            (explanation.cell, .object(explanation.rejected.map { ($0.cloud, .array($0.reasons.map { .string($0.description) })) }))
        })
    }
}
