import Foundation
import MCloudHTTP
import MCloudTestSupport
import Testing
@testable import MCloudAWS

/// What a database VM is given of the operator's `AWS_CA_BUNDLE`: only the certificates its system store lacks, as
/// the VM has the same public CAs, so a whole system bundle (over 200 KB, more than the user data holds) adds nothing
/// and a private CA appended to one is kept alone; mcloud's own requests keep the whole file.
struct VMCertificateAuthorityTests {
    static let systemStore = "/etc/ssl/certs/ca-certificates.crt"

    enum Bundle: String, CaseIterable, Sendable {
        case unset, systemStore = "the system store", privateCA = "a private CA", systemStorePlusPrivateCA = "the system store with a private CA"
    }

    @Test(arguments: Bundle.allCases)
    func theVMGetsOnlyTheCertificatesItsSystemStoreLacks(_ bundle: Bundle) async throws {
        let folder = NSTemporaryDirectory() + "mcloud-vm-ca-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try await Command.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=mcloud test private CA",
            "-keyout", "\(folder)/ca.key", "-out", "\(folder)/ca.crt",
        ])
        #expect(made.succeeded)
        let privateCA = try String(contentsOfFile: "\(folder)/ca.crt", encoding: .utf8)
        let system = try String(contentsOfFile: Self.systemStore, encoding: .utf8)
        let contents: String? = switch bundle {
        case .unset: nil
        case .systemStore: system
        case .privateCA: privateCA
        case .systemStorePlusPrivateCA: system + privateCA
        }
        var environment: [String: String] = [:]
        if let contents {
            try Data(contents.utf8).write(to: URL(fileURLWithPath: "\(folder)/bundle.pem"))
            environment["AWS_CA_BUNDLE"] = "\(folder)/bundle.pem"
        }
        let given = try BackupUpload.certificateAuthority(environment: environment, systemStore: Self.systemStore)
        // mcloud's own requests trust the whole file, public CAs included, in place of the system's store.
        let own = try AWSTransport.curl(environment: environment, timeouts: HTTPTimeouts()).tls.certificateAuthorityPEM
        #expect(own == contents.map { Array($0.utf8) })
        switch bundle {
        case .unset, .systemStore: #expect(given == nil)
        case .privateCA, .systemStorePlusPrivateCA: #expect(given == privateCA)
        }
    }

    @Test func aStoreThatIsMissingLeavesTheWholeBundle() throws {
        let bundle = try #require(BackupUpload.certificates(in: String(contentsOfFile: Self.systemStore, encoding: .utf8)).first)
        let file = NSTemporaryDirectory() + "mcloud-vm-ca-\(UUID().uuidString.prefix(8)).pem"
        try Data("\(bundle.block)\n".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try BackupUpload.certificateAuthority(environment: ["AWS_CA_BUNDLE": file], systemStore: "/nonexistent/ca.crt") == "\(bundle.block)\n")
    }
}
