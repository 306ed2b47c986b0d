import Foundation
import MCloudCore
import MCloudHTTP
import MCloudKubernetes
import Testing

@Suite struct KubeconfigTests {
    /// Writes files into a fresh folder and returns its path.
    static func folder(_ files: [String: String]) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-kubeconfig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        return directory.path
    }

    static let full = """
        apiVersion: v1
        kind: Config
        current-context: prod
        clusters:
        - name: vk
          cluster:
            server: https://k8s.vk.example:6443/
            certificate-authority-data: \(Data("CA PEM".utf8).base64EncodedString())
        - name: local
          cluster:
            server: https://127.0.0.1:6443
            certificate-authority: ca.crt
            insecure-skip-tls-verify: false
        users:
        - name: token-user
          user:
            token: abc.def
        - name: cert-user
          user:
            client-certificate: client.crt
            client-key-data: \(Data("KEY PEM".utf8).base64EncodedString())
        - name: file-user
          user:
            tokenFile: token.txt
        - name: exec-user
          user:
            exec:
              apiVersion: client.authentication.k8s.io/v1
              command: ./get-token
              args: [--cluster, vk]
              env: [{ name: REGION, value: ru-msk }]
              installHint: install get-token from your cloud's console
        contexts:
        - name: prod
          context: { cluster: vk, user: token-user, namespace: retail-bank-ru }
        - name: local-cert
          context: { cluster: local, user: cert-user }
        - name: local-file
          context: { cluster: local, user: file-user }
        - name: exec
          context: { cluster: vk, user: exec-user }
        """

    @Test func everyFieldIsReadAndRelativePathsFollowTheFile() throws {
        let directory = try Self.folder(["config": Self.full, "ca.crt": "LOCAL CA", "client.crt": "CLIENT CERT", "token.txt": "file-token\n"])
        let config = try KubeconfigLoader.load(environment: ["KUBECONFIG": "\(directory)/config"])
        let prod = try config.connection()
        #expect(prod.server == "https://k8s.vk.example:6443")
        #expect(prod.tls.certificateAuthorityPEM == Array("CA PEM".utf8))
        #expect(prod.credentials == .token("abc.def"))
        #expect(prod.namespace == "retail-bank-ru")
        let local = try config.connection(context: "local-cert")
        #expect(local.tls.certificateAuthorityPEM == Array("LOCAL CA".utf8))
        #expect(local.tls.clientCertificatePEM == Array("CLIENT CERT".utf8))
        #expect(local.tls.clientKeyPEM == Array("KEY PEM".utf8))
        #expect(local.namespace == "default")
        #expect(try config.connection(context: "local-file").credentials == .tokenFile("\(directory)/token.txt"))
        guard case .exec(let exec) = try config.connection(context: "exec").credentials else {
            Issue.record("expected an exec plugin")
            return
        }
        #expect(exec.command == "\(directory)/./get-token")
        #expect(exec.args == ["--cluster", "vk"])
        #expect(exec.env == ["REGION": "ru-msk"])
    }

    @Test func filesMergeTheWayKubectlMergesThem() throws {
        let first = """
            current-context: a
            clusters: [{ name: shared, cluster: { server: "https://first" } }]
            contexts: [{ name: a, context: { cluster: shared } }]
            """
        let second = """
            current-context: b
            clusters: [{ name: shared, cluster: { server: "https://second" } }, { name: other, cluster: { server: "https://other" } }]
            contexts: [{ name: b, context: { cluster: other } }]
            """
        let directory = try Self.folder(["one": first, "two": second])
        let config = try KubeconfigLoader.load(environment: ["KUBECONFIG": "\(directory)/missing:\(directory)/one:\(directory)/two"])
        #expect(config.currentContext == "a")
        #expect(config.clusters["shared"]?.server == "https://first")
        #expect(config.clusters["other"]?.server == "https://other")
        #expect(config.files == ["\(directory)/one", "\(directory)/two"])
        #expect(try config.connection(context: "b").server == "https://other")
    }

    @Test func theDefaultFileIsTheOneInHome() throws {
        let home = try Self.folder([:])
        try FileManager.default.createDirectory(atPath: "\(home)/.kube", withIntermediateDirectories: true)
        try Data("clusters: [{ name: c, cluster: { server: \"https://h\" } }]\ncontexts: [{ name: x, context: { cluster: c } }]\ncurrent-context: x\n".utf8)
            .write(to: URL(fileURLWithPath: "\(home)/.kube/config"))
        #expect(try KubeconfigLoader.load(environment: ["HOME": home]).connection().server == "https://h")
    }

    struct Broken: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        var context: String?
        var message: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        Broken(name: "not a mapping", text: "- a\n- b\n", message: "FILE:1:1: kubeconfig: kubeconfig must be a mapping, found a list"),
        Broken(name: "cluster without server", text: "clusters: [{ name: c, cluster: {} }]\n", message: "FILE:1:32: kubeconfig: clusters[0].cluster.server is missing"),
        Broken(name: "server not a URL", text: "clusters: [{ name: c, cluster: { server: k8s.local } }]\n", message: "FILE:1:42: kubeconfig: clusters[0].cluster.server \"k8s.local\" is not an http(s) URL"),
        Broken(name: "bad base64", text: "clusters: [{ name: c, cluster: { server: \"https://x\", certificate-authority-data: \"%%%\" } }]\n", message: "FILE:1:83: kubeconfig: clusters[0].cluster.certificate-authority-data is not valid base64"),
        Broken(name: "legacy auth provider", text: "users: [{ name: u, user: { auth-provider: { name: gcp } } }]\n", message: "FILE:1:43: kubeconfig: users[0].user.auth-provider is the removed legacy plugin mechanism; use an exec credential plugin"),
        Broken(name: "old exec version", text: "users: [{ name: u, user: { exec: { apiVersion: client.authentication.k8s.io/v1alpha1, command: x } } }]\n", message: "FILE:1:48: kubeconfig: users[0].user.exec.apiVersion \"client.authentication.k8s.io/v1alpha1\" is not supported; use client.authentication.k8s.io/v1 or v1beta1"),
        Broken(name: "insecure not a boolean", text: "clusters: [{ name: c, cluster: { server: \"https://x\", insecure-skip-tls-verify: yes } }]\n", message: "FILE:1:81: kubeconfig: clusters[0].cluster.insecure-skip-tls-verify must be true or false"),
        Broken(name: "tabs", text: "clusters:\n\t- name: c\n", message: "FILE:2:1: kubeconfig: found character that cannot start any token (while scanning for the next token); YAML does not allow tabs for indentation, use spaces"),
        Broken(name: "unknown context", text: "contexts: [{ name: prod, context: { cluster: c } }]\n", context: "prd", message: "FILE: kubeconfig: context \"prd\" not found (files: FILE); contexts: prod"),
        Broken(name: "context names no cluster", text: "contexts: [{ name: prod, context: { cluster: c } }]\n", context: "prod", message: "FILE:1:35: kubeconfig: context \"prod\" names cluster \"c\", which is not defined"),
        Broken(name: "no current context", text: "clusters: []\n", message: "FILE: kubeconfig: no context given and no current-context set (files: FILE)"),
    ])
    func malformedFilesNameTheFileAndTheKey(_ broken: Broken) throws {
        let directory = try Self.folder(["config": broken.text])
        let file = "\(directory)/config"
        #expect {
            let config = try KubeconfigLoader.load(environment: ["KUBECONFIG": file])
            _ = try config.connection(context: broken.context)
        } throws: { error in
            let text = (error as? KubeconfigError).map { error -> String in
                error.location == nil && error.file == nil ? "FILE: \(error.description)" : error.description
            } ?? "\(error)"
            return text.replacingOccurrences(of: file, with: "FILE") == broken.message
        }
    }

    @Test func noFileAtAllIsAClearError() {
        #expect(throws: KubeconfigError("no kubeconfig file found (looked at /nonexistent/a, /nonexistent/b)")) {
            _ = try KubeconfigLoader.load(environment: ["KUBECONFIG": "/nonexistent/a:/nonexistent/b"])
        }
    }
}
