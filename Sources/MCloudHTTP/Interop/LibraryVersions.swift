internal import CCurl
internal import COpenSSL

/// Versions of the C libraries the HTTP layer links, for `mcloud version` and bug reports.
public enum HTTPLibraryVersions {
    public static var curl: String {
        guard let info = mcloud_curl_version_info(), let version = info.pointee.version else { return "unknown" }
        return String(cString: version)
    }

    public static var openSSL: String {
        guard let text = OpenSSL_version(OPENSSL_VERSION) else { return "unknown" }
        return String(cString: text)
    }
}
