/// An AWS service as the client addresses and signs it.
public struct AWSService: Sendable, Hashable, CustomStringConvertible {
    /// The name in the credential scope (`…/us-east-1/ec2/aws4_request`).
    public var signingName: String
    /// The first label of the default host name (`ec2.REGION.amazonaws.com`).
    public var endpointPrefix: String
    /// The suffix of `AWS_ENDPOINT_URL_<KEY>` that overrides this service's endpoint.
    public var environmentKey: String
    /// Global services have one endpoint and sign for this region (CloudFront: us-east-1).
    public var globalRegion: String?

    public init(signingName: String, endpointPrefix: String, environmentKey: String, globalRegion: String? = nil) {
        self.signingName = signingName
        self.endpointPrefix = endpointPrefix
        self.environmentKey = environmentKey
        self.globalRegion = globalRegion
    }

    public var description: String { signingName }

    public static let s3 = AWSService(signingName: "s3", endpointPrefix: "s3", environmentKey: "S3")
    public static let ec2 = AWSService(signingName: "ec2", endpointPrefix: "ec2", environmentKey: "EC2")
    public static let rds = AWSService(signingName: "rds", endpointPrefix: "rds", environmentKey: "RDS")
    public static let eks = AWSService(signingName: "eks", endpointPrefix: "eks", environmentKey: "EKS")
    public static let sts = AWSService(signingName: "sts", endpointPrefix: "sts", environmentKey: "STS")
    /// IAM has one endpoint, `iam.amazonaws.com`, signed for us-east-1.
    public static let iam = AWSService(signingName: "iam", endpointPrefix: "iam", environmentKey: "IAM", globalRegion: "us-east-1")
    public static let cloudFront = AWSService(signingName: "cloudfront", endpointPrefix: "cloudfront", environmentKey: "CLOUDFRONT", globalRegion: "us-east-1")

    /// The public AWS endpoint for a region.
    public func defaultEndpoint(region: String) -> String {
        if globalRegion != nil { return "https://\(endpointPrefix).amazonaws.com" }
        return "https://\(endpointPrefix).\(region).amazonaws.com\(region.hasPrefix("cn-") ? ".cn" : "")"
    }
}
