import MCloudCore
import MCloudHTTP

/// IAM users with an inline policy and access keys: the scoped identities mcloud makes for database VMs' backup
/// jobs and restores (docs/security.md, H2). Only the calls those use.
public struct IAMClient: Sendable {
    public static let apiVersion = "2010-05-08"
    public let client: AWSClient

    public init(client: AWSClient) {
        self.client = client
    }

    public struct User: Sendable, Hashable {
        public var name: String
        public var path: String
        public var id: String
        public var arn: String
        /// Empty from `listUsers`, which IAM answers without tags; `user(named:)` has them.
        public var tags: [String: String]
    }

    /// An access key's metadata. The secret is only in `NewAccessKey`, once, when the key is made.
    public struct AccessKey: Sendable, Hashable {
        public var id: String
        public var userName: String
        /// `Active` or `Inactive`.
        public var status: String
    }

    /// A key just made: the only answer IAM ever gives its secret in.
    public struct NewAccessKey: Sendable {
        public var key: AccessKey
        public var credentials: AWSCredentials
    }

    /// Creates a user under `path` (such as `/mcloud/`) with tags.
    public func createUser(name: String, path: String, tags: [String: String] = [:]) async throws(AWSError) -> User {
        var parameters = [("UserName", name), ("Path", path)]
        parameters += EC2Client.tagParameters(tags, prefix: "Tags.member")
        let answer = try await call("CreateUser", parameters)
        return try Self.user(answer, operation: "CreateUser")
    }

    /// The user with its tags, or nil when there is none (`NoSuchEntity`).
    public func user(named name: String) async throws(AWSError) -> User? {
        do {
            return try Self.user(try await call("GetUser", [("UserName", name)], idempotent: true), operation: "GetUser")
        } catch where error.code == "NoSuchEntity" {
            return nil
        }
    }

    /// Every user whose path starts with `pathPrefix`, all pages.
    public func listUsers(pathPrefix: String) async throws(AWSError) -> [User] {
        try await pages("ListUsers", [("PathPrefix", pathPrefix)]) { $0.child("Users")?.children("member").compactMap(Self.user) ?? [] }
    }

    /// Deletes a user; one that is already gone counts as deleted. IAM refuses (`DeleteConflict`) while it still has
    /// policies or keys.
    public func deleteUser(name: String) async throws(AWSError) {
        do {
            _ = try await call("DeleteUser", [("UserName", name)], idempotent: true)
        } catch where error.code == "NoSuchEntity" {
            return
        }
    }

    /// Sets (creates or replaces) a user's inline policy.
    public func putUserPolicy(userName: String, policyName: String, document: String) async throws(AWSError) {
        _ = try await call("PutUserPolicy", [("UserName", userName), ("PolicyName", policyName), ("PolicyDocument", document)], idempotent: true)
    }

    /// The inline policy's JSON document, or nil when the user has no policy of that name.
    public func userPolicy(userName: String, policyName: String) async throws(AWSError) -> String? {
        let answer: XMLNode
        do {
            answer = try await call("GetUserPolicy", [("UserName", userName), ("PolicyName", policyName)], idempotent: true)
        } catch where error.code == "NoSuchEntity" {
            return nil
        }
        guard let document = answer.child("GetUserPolicyResult")?.value("PolicyDocument") else {
            throw .invalidResponse(operation: "iam GetUserPolicy", detail: "no PolicyDocument in the answer")
        }
        return Self.policyText(document)
    }

    public func listUserPolicies(userName: String) async throws(AWSError) -> [String] {
        try await pages("ListUserPolicies", [("UserName", userName)]) { result in
            result.child("PolicyNames")?.children("member").map { $0.text.trimmed } ?? []
        }
    }

    public func deleteUserPolicy(userName: String, policyName: String) async throws(AWSError) {
        do {
            _ = try await call("DeleteUserPolicy", [("UserName", userName), ("PolicyName", policyName)], idempotent: true)
        } catch where error.code == "NoSuchEntity" {
            return
        }
    }

    /// Makes a key for the user. Not retried when the answer is lost: a second call would make a second key, and IAM
    /// allows two per user.
    public func createAccessKey(userName: String) async throws(AWSError) -> NewAccessKey {
        let answer = try await call("CreateAccessKey", [("UserName", userName)])
        guard let item = answer.child("CreateAccessKeyResult")?.child("AccessKey"), let key = Self.accessKey(item),
              let secret = item.value("SecretAccessKey"), !secret.isEmpty
        else {
            throw .invalidResponse(operation: "iam CreateAccessKey", detail: "no access key in the answer")
        }
        return NewAccessKey(key: key, credentials: AWSCredentials(accessKeyID: key.id, secretAccessKey: secret))
    }

    public func listAccessKeys(userName: String) async throws(AWSError) -> [AccessKey] {
        try await pages("ListAccessKeys", [("UserName", userName)]) { $0.child("AccessKeyMetadata")?.children("member").compactMap(Self.accessKey) ?? [] }
    }

    /// Deletes a key; one that is already gone counts as deleted.
    public func deleteAccessKey(userName: String, id: String) async throws(AWSError) {
        do {
            _ = try await call("DeleteAccessKey", [("UserName", userName), ("AccessKeyId", id)], idempotent: true)
        } catch where error.code == "NoSuchEntity" {
            return
        }
    }

    private func call(_ action: String, _ parameters: [(String, String)], idempotent: Bool = false) async throws(AWSError) -> XMLNode {
        try await client.query(.iam, action: action, version: Self.apiVersion, parameters: parameters, idempotent: idempotent)
    }

    /// A listing's items over every page (`IsTruncated` and `Marker`), bounded by `PageTokens`.
    private func pages<Item>(_ action: String, _ parameters: [(String, String)], items: (XMLNode) -> [Item]) async throws(AWSError) -> [Item] {
        var all: [Item] = []
        var tokens = PageTokens(operation: "iam \(action)")
        var marker: String?
        repeat {
            let answer = try await call(action, parameters + (marker.map { [("Marker", $0)] } ?? []), idempotent: true)
            guard let result = answer.child("\(action)Result") else {
                throw .invalidResponse(operation: "iam \(action)", detail: "no \(action)Result in the answer")
            }
            all += items(result)
            marker = try tokens.advance(result.value("IsTruncated") == "true" ? result.value("Marker") : nil)
        } while marker != nil
        return all
    }

    static func user(_ answer: XMLNode, operation: String) throws(AWSError) -> User {
        guard let user = answer.child("\(operation)Result")?.child("User").flatMap(user) else {
            throw .invalidResponse(operation: "iam \(operation)", detail: "no User in the answer")
        }
        return user
    }

    static func user(_ item: XMLNode) -> User? {
        guard let name = item.value("UserName"), let arn = item.value("Arn") else { return nil }
        var tags: [String: String] = [:]
        for tag in item.child("Tags")?.children("member") ?? [] {
            if let key = tag.value("Key") { tags[key] = tag.value("Value") ?? "" }
        }
        return User(name: name, path: item.value("Path") ?? "/", id: item.value("UserId") ?? "", arn: arn, tags: tags)
    }

    static func accessKey(_ item: XMLNode) -> AccessKey? {
        guard let id = item.value("AccessKeyId"), let user = item.value("UserName") else { return nil }
        return AccessKey(id: id, userName: user, status: item.value("Status") ?? "")
    }

    /// IAM sends a policy document percent-encoded (RFC 3986); moto sends it as it was put. A JSON document starts
    /// with `{`, which percent-encoding always escapes, so the two cannot be confused.
    static func policyText(_ document: String) -> String {
        document.hasPrefix("{") ? document : PercentEncoding.decode(document)
    }
}
