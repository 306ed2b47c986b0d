internal import COpenSSL

/// One X.509 certificate being built with OpenSSL, owned by this value and freed in `deinit`.
final class OpenSSLCertificate {
    let certificate: OpaquePointer

    init() throws(CryptoError) {
        guard let certificate = X509_new() else { throw .library(operation: "X509_new") }
        self.certificate = certificate
    }

    deinit {
        X509_free(certificate)
    }

    /// A v3 certificate of `request`, signed by `issuerKey` under `issuerName` (its own for a self-signed CA).
    static func issue(
        _ request: CertificateRequest, isAuthority: Bool, subjectKey: OpenSSLKey, issuerName: String, issuerKey: OpenSSLKey,
        issuerCertificate: OpenSSLCertificate?
    ) throws(CryptoError) -> String {
        let built = try OpenSSLCertificate()
        let x509 = built.certificate
        guard X509_set_version(x509, 2) == 1 else { throw .library(operation: "X509_set_version") }
        try built.setSerial(request.serialNumber)
        guard ASN1_TIME_set(X509_getm_notBefore(x509), time_t(request.notBefore)) != nil,
            ASN1_TIME_set(X509_getm_notAfter(x509), time_t(request.notAfter)) != nil
        else { throw .library(operation: "ASN1_TIME_set") }
        try built.setName(request.commonName, X509_set_subject_name)
        try built.setName(issuerName, X509_set_issuer_name)
        guard X509_set_pubkey(x509, subjectKey.key) == 1 else { throw .library(operation: "X509_set_pubkey") }
        var extensions: [(Int32, String)] = [
            (NID_basic_constraints, isAuthority ? "critical,CA:TRUE,pathlen:0" : "critical,CA:FALSE"),
            (NID_key_usage, isAuthority ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature"),
            (NID_subject_key_identifier, "hash"),
        ]
        if !isAuthority {
            extensions.append((NID_ext_key_usage, "serverAuth,clientAuth"))
            extensions.append((NID_authority_key_identifier, "keyid:always"))
        }
        let names = request.dnsNames.map { "DNS:\($0)" } + request.ipAddresses.map { "IP:\($0)" }
        if !names.isEmpty { extensions.append((NID_subject_alt_name, names.joined(separator: ","))) }
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuerCertificate?.certificate ?? x509, x509, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else { throw .library(operation: "X509V3_EXT_conf_nid(\(nid))") }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else { throw .library(operation: "X509_add_ext") }
        }
        // Ed25519 signs the certificate's bytes directly: no digest.
        guard X509_sign(x509, issuerKey.key, nil) > 0 else { throw .library(operation: "X509_sign") }
        return try built.pem()
    }

    init(pem: String) throws(CryptoError) {
        let bio = try OpenSSLMemoryBIO()
        let bytes = Array(pem.utf8)
        guard BIO_write(bio.bio, bytes, Int32(bytes.count)) == Int32(bytes.count),
            let certificate = PEM_read_bio_X509(bio.bio, nil, nil, nil)
        else { throw .library(operation: "PEM_read_bio_X509") }
        self.certificate = certificate
    }

    func pem() throws(CryptoError) -> String {
        let bio = try OpenSSLMemoryBIO()
        guard PEM_write_bio_X509(bio.bio, certificate) == 1 else { throw .library(operation: "PEM_write_bio_X509") }
        return bio.text
    }

    private func setSerial(_ serial: [UInt8]) throws(CryptoError) {
        guard let number = BN_bin2bn(serial, Int32(serial.count), nil) else { throw .library(operation: "BN_bin2bn") }
        defer { BN_free(number) }
        guard let integer = BN_to_ASN1_INTEGER(number, nil) else { throw .library(operation: "BN_to_ASN1_INTEGER") }
        defer { ASN1_INTEGER_free(integer) }
        guard X509_set_serialNumber(certificate, integer) == 1 else { throw .library(operation: "X509_set_serialNumber") }
    }

    private func setName(_ commonName: String, _ set: (OpaquePointer?, OpaquePointer?) -> Int32) throws(CryptoError) {
        guard let name = X509_NAME_new() else { throw .library(operation: "X509_NAME_new") }
        defer { X509_NAME_free(name) }
        let bytes = Array(commonName.utf8)
        guard X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
            throw .library(operation: "X509_NAME_add_entry_by_txt")
        }
        guard set(certificate, name) == 1 else { throw .library(operation: "X509_set_name") }
    }
}
