public import MCloudCore

/// Where the last complete apply put every cell and what that placement cost a month, as the state keeps it: the
/// next plan compares its cost with this one (the cost diff) and its placement with this one (what a policy calls a
/// move), without reading any cloud. Amounts are in `cost.currency`, the application's at the time.
public struct AppliedPlacement: Sendable, Hashable {
    /// A service cell's replicas by cloud, or a database cell's primary and backup clouds.
    public enum Site: Sendable, Hashable {
        case replicas([String: Int])
        case database(primary: String, backup: String?)

        /// Every cloud the cell uses.
        public var clouds: [String] {
            switch self {
            case .replicas(let replicas): return replicas.filter { $0.value > 0 }.keys.sorted()
            case .database(let primary, let backup): return [primary] + (backup.map { [$0] } ?? [])
            }
        }
    }

    public struct Cost: Sendable, Hashable {
        public var currency: String
        public var monthly: Double
        public var byCloud: [String: Double]
        public var byCell: [String: Double]
        public var byCDN: [String: Double]

        public init(currency: String, monthly: Double, byCloud: [String: Double], byCell: [String: Double], byCDN: [String: Double]) {
            self.currency = currency
            self.monthly = monthly
            self.byCloud = byCloud
            self.byCell = byCell
            self.byCDN = byCDN
        }
    }

    /// By cell name.
    public var cells: [String: Site]
    /// The cloud of each CDN, by name.
    public var cdns: [String: String]
    public var cost: Cost

    public init(cells: [String: Site], cdns: [String: String], cost: Cost) {
        self.cells = cells
        self.cdns = cdns
        self.cost = cost
    }

    /// The shape of the plan document's `placement`, without the why, the bound and the gap; keys sorted.
    public var json: JSONValue {
        func sorted<Value>(_ map: [String: Value], _ value: (Value) -> JSONValue) -> JSONValue {
            .object(map.sorted { $0.key < $1.key }.map { ($0.key, value($0.value)) })
        }
        return .object([
            ("cells", sorted(cells) { site in
                switch site {
                case .replicas(let replicas):
                    return .object([("kind", .string("Service")), ("replicas", sorted(replicas) { .int($0) })])
                case .database(let primary, let backup):
                    return .object([("kind", .string("Database")), ("primary", .string(primary))] + (backup.map { [("backup", JSONValue.string($0))] } ?? []))
                }
            }),
            ("cdn", sorted(cdns) { .string($0) }),
            ("cost", .object([
                ("currency", .string(cost.currency)),
                ("monthly", .rounded(cost.monthly)),
                ("byCloud", sorted(cost.byCloud) { .rounded($0) }),
                ("byCell", sorted(cost.byCell) { .rounded($0) }),
                ("byCDN", sorted(cost.byCDN) { .rounded($0) }),
            ])),
        ])
    }

    static func parse(_ value: JSONValue, path: String) throws(FieldReader.Failure) -> AppliedPlacement {
        let reader = try FieldReader(value, path: path)
        try reader.allowOnly(["cells", "cdn", "cost"])
        var cells: [String: Site] = [:]
        for (name, item) in try reader.object("cells") {
            let cell = try FieldReader(item, path: reader.fieldPath("cells") + "." + name)
            switch try cell.string("kind") {
            case "Service":
                try cell.allowOnly(["kind", "replicas"])
                var replicas: [String: Int] = [:]
                for (cloud, count) in try cell.object("replicas") {
                    guard case .int(let number) = count, number > 0 else { throw cell.failure("replicas." + cloud, "expected a positive integer") }
                    replicas[cloud] = number
                }
                cells[name] = .replicas(replicas)
            case "Database":
                try cell.allowOnly(["kind", "primary", "backup"])
                cells[name] = .database(primary: try cell.string("primary"), backup: cell.has("backup") ? try cell.string("backup") : nil)
            case let kind:
                throw cell.failure("kind", "\"\(kind)\" is not Service or Database")
            }
        }
        var cdns: [String: String] = [:]
        for (name, cloud) in try reader.object("cdn") {
            guard case .string(let text) = cloud, !text.isEmpty else { throw reader.failure("cdn." + name, "expected a cloud name") }
            cdns[name] = text
        }
        let costReader = try FieldReader(.object(try reader.object("cost")), path: reader.fieldPath("cost"))
        try costReader.allowOnly(["currency", "monthly", "byCloud", "byCell", "byCDN"])
        func amounts(_ key: String) throws(FieldReader.Failure) -> [String: Double] {
            var result: [String: Double] = [:]
            for (name, amount) in try costReader.object(key) {
                guard let number = amount.doubleValue, number.isFinite else { throw costReader.failure(key + "." + name, "expected a number") }
                result[name] = number
            }
            return result
        }
        let cost = Cost(
            currency: try costReader.string("currency"), monthly: try costReader.number("monthly"),
            byCloud: try amounts("byCloud"), byCell: try amounts("byCell"), byCDN: try amounts("byCDN")
        )
        return AppliedPlacement(cells: cells, cdns: cdns, cost: cost)
    }
}
