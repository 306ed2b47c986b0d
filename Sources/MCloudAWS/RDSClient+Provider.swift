import MCloudHTTP

/// What the database provider needs beyond create and delete: listing with tags, changes in place, tags.
extension RDSClient {
    /// Every instance in the region (paginated), each with its tags.
    public func describeInstances() async throws(AWSError) -> [Instance] {
        var instances: [Instance] = []
        var pages = PageTokens(operation: "rds DescribeDBInstances")
        var marker: String?
        repeat {
            let parameters = marker.map { [("Marker", $0)] } ?? []
            let answer = try await client.query(.rds, action: "DescribeDBInstances", version: Self.apiVersion, parameters: parameters, idempotent: true)
            instances += answer.find("DBInstances")?.children("DBInstance").compactMap(Self.instance) ?? []
            marker = try pages.advance(answer.find("Marker").map { $0.text.trimmed })
        } while marker != nil
        return instances
    }

    /// The versions of `engine` (an RDS engine name: `postgres`, `mysql`, `mariadb`) the region sells now, over every
    /// page: DescribeDBEngineVersions lists only `available` ones unless asked for all, so a deprecated version is left out.
    public func engineVersions(engine: String) async throws(AWSError) -> [String] {
        var versions: [String] = []
        var pages = PageTokens(operation: "rds DescribeDBEngineVersions")
        var marker: String?
        repeat {
            let parameters = [("Engine", engine)] + (marker.map { [("Marker", $0)] } ?? [])
            let answer = try await client.query(.rds, action: "DescribeDBEngineVersions", version: Self.apiVersion, parameters: parameters, idempotent: true)
            let listed = answer.find("DBEngineVersions")?.children("DBEngineVersion") ?? []
            versions += listed.filter { $0.value("Engine") == engine }.compactMap { $0.value("EngineVersion") }
            marker = try pages.advance(answer.find("Marker").map { $0.text.trimmed })
        } while marker != nil
        return versions
    }

    /// ModifyDBInstance with `ApplyImmediately`, so the change does not wait for the maintenance window.
    public func modifyInstance(_ identifier: String, _ changes: [(String, String)]) async throws(AWSError) {
        guard !changes.isEmpty else { return }
        let parameters = [("DBInstanceIdentifier", identifier), ("ApplyImmediately", "true")] + changes
        _ = try await client.query(.rds, action: "ModifyDBInstance", version: Self.apiVersion, parameters: parameters, idempotent: true)
    }

    public func addTags(arn: String, _ tags: [String: String]) async throws(AWSError) {
        guard !tags.isEmpty else { return }
        let parameters = [("ResourceName", arn)] + EC2Client.tagParameters(tags, prefix: "Tags.Tag")
        _ = try await client.query(.rds, action: "AddTagsToResource", version: Self.apiVersion, parameters: parameters, idempotent: true)
    }

    public func removeTags(arn: String, keys: [String]) async throws(AWSError) {
        guard !keys.isEmpty else { return }
        let parameters = [("ResourceName", arn)] + keys.sorted().enumerated().map { ("TagKeys.member.\($0.offset + 1)", $0.element) }
        _ = try await client.query(.rds, action: "RemoveTagsFromResource", version: Self.apiVersion, parameters: parameters, idempotent: true)
    }

    /// Deletes the instance (see `deleteInstance(_:finalSnapshot:)`) and polls until RDS no longer lists it.
    public func deleteAndWait(_ identifier: String, finalSnapshot: String?, timeout: Double = 1800) async throws(AWSError) {
        try await deleteInstance(identifier, finalSnapshot: finalSnapshot)
        try await client.poller(timeout: timeout).until("RDS instance \(identifier) deleted") { () throws(AWSError) in
            try await describeInstance(identifier) == nil
        }
    }

    /// `<Tag><Key>…</Key><Value>…</Value></Tag>` items as a dictionary.
    static func tags(_ list: XMLNode?) -> [String: String] {
        var tags: [String: String] = [:]
        for tag in list?.children("Tag") ?? [] {
            if let key = tag.value("Key") { tags[key] = tag.value("Value") ?? "" }
        }
        return tags
    }
}
