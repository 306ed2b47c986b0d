public import MCloudHTTP

/// The HTTP transport for AWS's APIs and S3-compatible storage: libcurl trusting the CAs in the PEM file
/// `AWS_CA_BUNDLE` names, as the AWS tools do (a private endpoint's CA, a TLS-inspecting proxy's), in place of the
/// system's store, which it trusts when the variable is unset.
public enum AWSTransport {
    public static func curl(environment: [String: String], timeouts: HTTPTimeouts) throws(AWSError) -> CurlTransport {
        let authority = try BackupUpload.caBundle(environment: environment)
        return CurlTransport(tls: TLSConfiguration(certificateAuthorityPEM: authority.map { Array($0.utf8) }), timeouts: timeouts)
    }
}
