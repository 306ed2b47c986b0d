public import Foundation
import MCloudCore
import MCloudHTTP

/// EKS: the bearer token `aws eks get-token` makes, and DescribeCluster for the API endpoint and CA.
public struct EKSClient: Sendable {
    public let client: AWSClient

    public init(client: AWSClient) {
        self.client = client
    }

    public struct Cluster: Sendable, Hashable {
        public var name: String
        public var endpoint: String
        /// PEM of the cluster CA (decoded from `certificateAuthority.data`).
        public var certificateAuthorityPEM: [UInt8]
        public var status: String
        public var version: String?
    }

    /// `k8s-aws-v1.` + base64url (no padding) of a presigned STS GetCallerIdentity URL that names the cluster in the
    /// signed `x-k8s-aws-id` header, valid 60 s. The API server's authenticator replays it to STS. The region is
    /// checked as for every request, since the token names STS's host and is handed to whoever holds it.
    public func token(clusterName: String, at date: Date? = nil) throws(AWSError) -> String {
        if !client.configuration.isCustomEndpoint(.sts) { try AWSClient.checkRegion(client.configuration.region) }
        let url = client.endpoint(for: .sts) + "/?Action=GetCallerIdentity&Version=2011-06-15"
        let request = HTTPRequest(method: .GET, url: url, headers: [("x-k8s-aws-id", clusterName)])
        let presigned = client.signer(for: .sts).presign(request, at: date ?? client.now, expires: 60).request.url
        let encoded = Data(presigned.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "k8s-aws-v1." + encoded
    }

    public func describeCluster(_ name: String) async throws(AWSError) -> Cluster {
        let operation = "eks DescribeCluster \(name)"
        let request = HTTPRequest(method: .GET, url: client.endpoint(for: .eks) + "/clusters/\(PercentEncoding.encode(name))")
        let response = try await client.send(request, service: .eks, operation: operation)
        let json: JSONValue
        do {
            json = try JSONParser.parse(response.body)
        } catch {
            throw .invalidResponse(operation: operation, detail: error.description)
        }
        guard let cluster = json["cluster"], let endpoint = cluster["endpoint"]?.stringValue else {
            throw .invalidResponse(operation: operation, detail: "no cluster.endpoint in the answer")
        }
        let authority = cluster["certificateAuthority"]?["data"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map { Array($0) } ?? []
        return Cluster(name: cluster["name"]?.stringValue ?? name, endpoint: endpoint, certificateAuthorityPEM: authority, status: cluster["status"]?.stringValue ?? "UNKNOWN", version: cluster["version"]?.stringValue)
    }
}
