import Foundation
import MCloudHTTP

/// EC2 for database VMs: instances with user data and tags, security groups, tag-filtered listing, termination.
public struct EC2Client: Sendable {
    public static let apiVersion = "2016-11-15"
    /// The most user data RunInstances takes, in bytes before base64.
    public static let userDataLimit = 16_384
    public let client: AWSClient

    public init(client: AWSClient) {
        self.client = client
    }

    public struct InstanceSpec: Sendable, Hashable {
        public var imageID: String
        public var instanceType: String
        /// cloud-init user data as sent (the provider gzips it); base64-encoded on the wire.
        public var userData: [UInt8]?
        public var securityGroupIDs: [String]
        public var subnetID: String?
        public var keyName: String?
        public var tags: [String: String]
        /// Makes a retried RunInstances start no second instance (up to 64 ASCII characters).
        public var clientToken: String
        public var availabilityZone: String?
        /// The IAM instance profile (by name) whose role the VM's programs use, so no key is handed to it.
        public var instanceProfile: String?

        public init(
            imageID: String, instanceType: String, userData: [UInt8]? = nil, securityGroupIDs: [String] = [], subnetID: String? = nil,
            keyName: String? = nil, tags: [String: String] = [:], clientToken: String, availabilityZone: String? = nil, instanceProfile: String? = nil
        ) {
            self.availabilityZone = availabilityZone
            self.instanceProfile = instanceProfile
            self.imageID = imageID
            self.instanceType = instanceType
            self.userData = userData
            self.securityGroupIDs = securityGroupIDs
            self.subnetID = subnetID
            self.keyName = keyName
            self.tags = tags
            self.clientToken = clientToken
        }
    }

    public struct Instance: Sendable, Hashable {
        public var id: String
        /// `pending`, `running`, `shutting-down`, `terminated`, `stopping`, `stopped`.
        public var state: String
        public var privateIP: String?
        public var publicIP: String?
        public var tags: [String: String]
        public var instanceType: String? = nil
        public var zone: String? = nil
        /// IMDSv2 only (`metadataOptions.httpTokens` is `required`).
        public var metadataTokensRequired = false
    }

    /// Starts one instance. The ClientToken makes the call safe to retry, so throttled or dropped calls are resent.
    /// With `resendLostAnswers` false only throttled calls are resent: for emulators that ignore the token, the
    /// caller looks the instance up by its tags before it sends again.
    public func runInstance(_ spec: InstanceSpec, resendLostAnswers: Bool = true) async throws(AWSError) -> Instance {
        var parameters: [(String, String)] = [
            ("ImageId", spec.imageID), ("InstanceType", spec.instanceType), ("MinCount", "1"), ("MaxCount", "1"), ("ClientToken", spec.clientToken),
        ]
        if let userData = spec.userData { parameters.append(("UserData", Data(userData).base64EncodedString())) }
        for (index, group) in spec.securityGroupIDs.enumerated() { parameters.append(("SecurityGroupId.\(index + 1)", group)) }
        if let subnet = spec.subnetID { parameters.append(("SubnetId", subnet)) }
        if let key = spec.keyName { parameters.append(("KeyName", key)) }
        if let zone = spec.availabilityZone { parameters.append(("Placement.AvailabilityZone", zone)) }
        if let profile = spec.instanceProfile { parameters.append(("IamInstanceProfile.Name", profile)) }
        // IMDSv2 only, one hop: the metadata service (which serves the user data) answers no unsigned request and no
        // container behind the instance.
        parameters += [("MetadataOptions.HttpTokens", "required"), ("MetadataOptions.HttpPutResponseHopLimit", "1"), ("MetadataOptions.HttpEndpoint", "enabled")]
        if !spec.tags.isEmpty {
            parameters.append(("TagSpecification.1.ResourceType", "instance"))
            parameters += Self.tagParameters(spec.tags, prefix: "TagSpecification.1.Tag")
        }
        let answer = try await client.query(.ec2, action: "RunInstances", version: Self.apiVersion, parameters: parameters, idempotent: resendLostAnswers)
        guard let instance = answer.child("instancesSet")?.children("item").first.flatMap(Self.instance) else {
            throw .invalidResponse(operation: "ec2 RunInstances", detail: "no instance in the answer")
        }
        return instance
    }

    /// Instances carrying every given tag, optionally only in the given states.
    public func describeInstances(tags: [String: String] = [:], states: [String] = [], ids: [String] = []) async throws(AWSError) -> [Instance] {
        var filters = tags.sorted { $0.key < $1.key }.map { ("tag:\($0.key)", [$0.value]) }
        if !states.isEmpty { filters.append(("instance-state-name", states)) }
        var parameters = Self.filterParameters(filters)
        for (index, id) in ids.enumerated() { parameters.append(("InstanceId.\(index + 1)", id)) }
        var instances: [Instance] = []
        var pages = PageTokens(operation: "ec2 DescribeInstances")
        var token: String?
        repeat {
            let page = parameters + (token.map { [("NextToken", $0)] } ?? [])
            let answer = try await client.query(.ec2, action: "DescribeInstances", version: Self.apiVersion, parameters: page, idempotent: true)
            for reservation in answer.child("reservationSet")?.children("item") ?? [] {
                instances += reservation.child("instancesSet")?.children("item").compactMap(Self.instance) ?? []
            }
            token = try pages.advance(answer.value("nextToken"))
        } while token != nil
        return instances
    }

    public func terminateInstances(_ ids: [String]) async throws(AWSError) {
        guard !ids.isEmpty else { return }
        let parameters = ids.enumerated().map { ("InstanceId.\($0.offset + 1)", $0.element) }
        _ = try await client.query(.ec2, action: "TerminateInstances", version: Self.apiVersion, parameters: parameters, idempotent: true)
    }

    /// Terminates and polls (backoff from 1 s up to 15 s) until every instance reports `terminated`.
    public func terminateAndWait(_ ids: [String], timeout: Double = 600) async throws(AWSError) {
        try await terminateInstances(ids)
        try await client.poller(timeout: timeout).until("instances \(ids.joined(separator: ", ")) terminated") { () throws(AWSError) in
            try await describeInstances(ids: ids).allSatisfy { $0.state == "terminated" }
        }
    }

    /// Creates a security group and returns its id.
    public func createSecurityGroup(name: String, description: String, vpcID: String? = nil, tags: [String: String] = [:]) async throws(AWSError) -> String {
        var parameters = [("GroupName", name), ("GroupDescription", description)]
        if let vpcID { parameters.append(("VpcId", vpcID)) }
        if !tags.isEmpty {
            parameters.append(("TagSpecification.1.ResourceType", "security-group"))
            parameters += Self.tagParameters(tags, prefix: "TagSpecification.1.Tag")
        }
        let answer = try await client.query(.ec2, action: "CreateSecurityGroup", version: Self.apiVersion, parameters: parameters)
        guard let id = answer.value("groupId") else { throw .invalidResponse(operation: "ec2 CreateSecurityGroup", detail: "no groupId in the answer") }
        return id
    }

    /// The id of the security group with this name, if there is one.
    public func securityGroupID(name: String) async throws(AWSError) -> String? {
        let answer = try await client.query(
            .ec2, action: "DescribeSecurityGroups", version: Self.apiVersion, parameters: [("Filter.1.Name", "group-name"), ("Filter.1.Value.1", name)], idempotent: true
        )
        return answer.child("securityGroupInfo")?.children("item").first?.value("groupId")
    }

    /// Allows TCP `ports` from `cidr`. Returns false when the rule was already there (`InvalidPermission.Duplicate`).
    @discardableResult
    public func authorizeIngress(groupID: String, ports: ClosedRange<Int>, cidr: String, protocol ipProtocol: String = "tcp") async throws(AWSError) -> Bool {
        let parameters = [
            ("GroupId", groupID), ("IpPermissions.1.IpProtocol", ipProtocol), ("IpPermissions.1.FromPort", String(ports.lowerBound)),
            ("IpPermissions.1.ToPort", String(ports.upperBound)), ("IpPermissions.1.IpRanges.1.CidrIp", cidr),
        ]
        do {
            _ = try await client.query(.ec2, action: "AuthorizeSecurityGroupIngress", version: Self.apiVersion, parameters: parameters)
            return true
        } catch where error.code == "InvalidPermission.Duplicate" {
            return false
        }
    }

    /// Deletes a security group; a group that is already gone counts as deleted.
    public func deleteSecurityGroup(id: String) async throws(AWSError) {
        do {
            _ = try await client.query(.ec2, action: "DeleteSecurityGroup", version: Self.apiVersion, parameters: [("GroupId", id)], idempotent: true)
        } catch where error.code == "InvalidGroup.NotFound" {
            return
        }
    }

    static func tagParameters(_ tags: [String: String], prefix: String) -> [(String, String)] {
        tags.sorted { $0.key < $1.key }.enumerated().flatMap { index, tag in
            [("\(prefix).\(index + 1).Key", tag.key), ("\(prefix).\(index + 1).Value", tag.value)]
        }
    }

    /// The `tagSet` of an EC2 item as a dictionary.
    static func tags(_ item: XMLNode) -> [String: String] {
        var tags: [String: String] = [:]
        for tag in item.child("tagSet")?.children("item") ?? [] {
            if let key = tag.value("key") { tags[key] = tag.value("value") ?? "" }
        }
        return tags
    }

    static func instance(_ item: XMLNode) -> Instance? {
        guard let id = item.value("instanceId") else { return nil }
        let tags = tags(item)
        return Instance(
            id: id, state: item.value("instanceState", "name") ?? "unknown", privateIP: item.value("privateIpAddress"), publicIP: item.value("ipAddress"), tags: tags,
            instanceType: item.value("instanceType"), zone: item.value("placement", "availabilityZone"),
            metadataTokensRequired: item.value("metadataOptions", "httpTokens") == "required"
        )
    }
}
