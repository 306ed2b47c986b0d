import MCloudCore
import MCloudProvider
import Testing

@Suite struct SecretRedactionTests {
    static let secretNames = [
        "password", "DB_PASSWORD", "passwd", "passphrase", "secret", "clientSecret", "token", "serviceAccountToken",
        "Authorization", "credentials", "privateKey", "private_key", "apiKey", "api-key", "secretAccessKey",
        "client-key-data", "tls.key", "sshKey",
    ]
    /// Names that point at a secret or merely mention a word, and ordinary names.
    static let plainNames = [
        "name", "replicas", "key", "keyName", "secretName", "secretKeyRef", "tokenEnv", "accessKeyId", "passwordFile",
        "publicKey", "tls.crt", "image", "monkey",
    ]

    @Test(arguments: secretNames)
    func secretLookingNamesAreSecret(name: String) {
        #expect(SecretRedaction.isSecret(name))
    }

    @Test(arguments: plainNames)
    func referencesAndOrdinaryNamesAreNotSecret(name: String) {
        #expect(!SecretRedaction.isSecret(name))
    }

    @Test func recordingAResourceRedactsSecretsAtEveryDepthAndKeepsTheKeys() {
        let resource = ResourceState(
            address: "openstack.vk-msk.database.accounts-db", provider: "openstack", cloud: "vk-msk", providerID: "db-1",
            attributes: [
                "password": .string("hunter2"),
                "engine": .string("postgresql"),
                "users": .array([.object([("name", .string("app")), ("Password", .string("s3cret"))])]),
                "headers": .object([("Authorization", .string("Bearer abc")), ("Accept", .string("*/*"))]),
                "tls": .object([("tls.key", .object([("pem", .string("-----BEGIN PRIVATE KEY-----"))]))]),
                "automountServiceAccountToken": .bool(false),
            ]
        )
        let text = State(lineage: StateTests.lineage, serial: 1, resources: [resource]).serialized()
        for secret in ["hunter2", "s3cret", "Bearer abc", "PRIVATE KEY"] {
            #expect(!text.contains(secret))
        }
        #expect(resource.attributes["password"] == SecretRedaction.marker)
        #expect(resource.attributes["users"]?.arrayItems.first?["Password"] == SecretRedaction.marker)
        #expect(resource.attributes.value(at: ["headers", "Authorization"]) == SecretRedaction.marker)
        #expect(resource.attributes.value(at: ["headers", "Accept"]) == .string("*/*"))
        #expect(resource.attributes.value(at: ["tls", "tls.key"]) == SecretRedaction.marker)
        #expect(resource.attributes["engine"] == .string("postgresql"))
        // A boolean holds no secret and stays readable for diffs.
        #expect(resource.attributes["automountServiceAccountToken"] == .bool(false))
    }

    @Test func aPodsSecretVolumeNamesASecretAndStaysReadable() {
        let volume = JSONValue.object([
            ("name", .string("ca-payments-db")),
            ("secret", .object([("secretName", .string("payments-db-api")), ("items", .array([.object([("key", .string("ca.crt")), ("path", .string("ca.crt"))])]))])),
        ])
        let projection = JSONValue.object([("secret", .object([("name", .string("payments-db-api"))]))])
        let inline = JSONValue.object([("secret", .object([("value", .string("hunter2"))]))])
        #expect(SecretRedaction.redact(volume) == volume)
        #expect(SecretRedaction.redact(projection) == projection)
        #expect(SecretRedaction.redact(inline)["secret"] == SecretRedaction.marker)
    }

    @Test func aHandEditedStateWithASecretIsRedactedWhenRead() throws {
        let document = """
            {"format_version": 1, "lineage": "\(StateTests.lineage)", "serial": 1, "resources": [
              {"address": "a", "provider": "aws", "cloud": "aws-fra", "provider_id": "i-1", "attributes": {"token": "abc"}}]}
            """
        let state = try State.parse(Array(document.utf8), source: "pushed.json")
        #expect(state["a"]?.attributes["token"] == SecretRedaction.marker)
        #expect(!state.serialized().contains("abc"))
    }

    /// Values whose secrets are partly redacted already: redaction must still reach the rest, however deep, since it
    /// returns a value with nothing left to redact as it is.
    static let partlyRedacted: [(JSONValue, JSONValue)] = [
        (.object([("password", SecretRedaction.marker), ("token", .string("t"))]), .object([("password", SecretRedaction.marker), ("token", SecretRedaction.marker)])),
        (
            .object([("password", SecretRedaction.marker), ("env", .array([.object([("name", .string("DB_PASSWORD")), ("value", .string("x"))])]))]),
            .object([("password", SecretRedaction.marker), ("env", .array([.object([("name", .string("DB_PASSWORD")), ("value", SecretRedaction.marker)])]))])
        ),
        (.array([.object([("secret", SecretRedaction.marker)]), .object([("apiKey", .object([("k", .int(1))]))])]), .array([.object([("secret", SecretRedaction.marker)]), .object([("apiKey", SecretRedaction.marker)])])),
    ]

    @Test func theCheckFindsEveryPartAnywhereAsASubstringSearchDoes() {
        // The check is an automaton over the parts, folding as it reads; a plain search of every part at every place
        // must agree with it on names built around each part, whatever is before, inside or after (beginnings of
        // parts before a part, where an automaton must fall back rather than start over).
        let parts = ["password", "passwd", "passphrase", "secret", "token", "authorization", "credential", "privatekey", "apikey",
                     "accesskey", "keydata", "tlskey", "sshkey", "clientkey"]
        let affixes = ["", "a", "p", "pass", "x-", "_", "Db", "tok", "sec", "ssh.", "key", "name", "Ref", "ids", "9", "é", "acces", "cLiEnT"]
        func reference(_ name: String) -> Bool {
            let folded = String(decoding: name.utf8.compactMap { byte -> UInt8? in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return byte
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte + 32
                default: return nil
                }
            }, as: UTF8.self)
            guard parts.contains(where: { folded.contains($0) }) else { return false }
            return !["name", "names", "ref", "refs", "env", "id", "path", "file"].contains { folded.hasSuffix($0) }
        }
        var checked = 0
        let names = parts + parts.map { $0.uppercased() } + ["pass_word", "se-cret", "Tls.Key", "passwor", "ecret", "toke"]
        for part in names {
            for before in affixes {
                for after in affixes {
                    let name = before + part + after
                    #expect(SecretRedaction.isSecret(name) == reference(name), "\(name)")
                    checked += 1
                }
            }
        }
        #expect(checked > 6000)
    }

    @Test(arguments: partlyRedacted)
    func redactionReachesSecretsLeftBesideRedactedOnes(_ value: JSONValue, _ redacted: JSONValue) {
        #expect(SecretRedaction.redact(value) == redacted)
        #expect(SecretRedaction.redact(redacted) == redacted)
    }
}
