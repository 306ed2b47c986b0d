/// An access key pair and, for temporary credentials, the session token. Printing it never shows the secret.
public struct AWSCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String {
        "AWSCredentials(accessKeyID: \(accessKeyID), secretAccessKey: [REDACTED]\(sessionToken == nil ? "" : ", sessionToken: [REDACTED]"))"
    }

    public var debugDescription: String { description }
}
