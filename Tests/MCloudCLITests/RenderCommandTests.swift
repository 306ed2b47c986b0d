import Foundation
import Testing

/// `render --out` writes the tree with its bootstrap objects and remembers their repository; `render --check DIR`
/// exits 0 when DIR holds exactly what would be rendered, 2 naming what differs, 1 when DIR cannot be read.
@Suite struct RenderCommandTests {
    static let repository = "https://git.example/platform/shop-deploy.git"
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("mcloud-render-cli-\(UUID().uuidString)").path

    var out: String { scratch + "/deploy" }

    func render(_ extra: [String], providers: String = "\(repositoryRoot)/Providers") async -> Run {
        await mcloudRun(["render", "-f", "\(repositoryRoot)/Manifests/shop", "--providers", providers] + extra)
    }

    func files(under directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
    }

    @Test func aRenderedTreeChecksIdenticalAndTheRepositoryIsRemembered() async throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let first = await render(["--out", out, "--repo", Self.repository, "--branch", "prod"])
        #expect(first.exitCode == 0, "\(first.stderr)")
        #expect(first.stdout.hasSuffix("; bootstrap for \(Self.repository) (prod).\n"))
        #expect(FileManager.default.fileExists(atPath: out + "/bootstrap/argocd/shop.applicationset.yaml"))
        let check = await render(["--check", out])
        #expect(check.exitCode == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout == "\(out) is what mcloud renders now: \(files(under: out).count) files identical.\n")
        // Without --repo, a later render uses what the directory was rendered for.
        let again = await render(["--out", out])
        #expect(again.exitCode == 0)
        #expect(again.stdout.hasSuffix("; bootstrap for \(Self.repository) (prod).\n"))
        let branch = await render(["--check", out, "--branch", "main"])
        #expect(branch.exitCode == 2)
        #expect(branch.stdout.contains("-branch: \"prod\"\n+branch: \"main\"\n"))
        #expect(branch.stdout.contains("-        targetRevision: prod\n+        targetRevision: main\n"))
    }

    /// `--state`: the slices and egress policies a controller syncs hold the addresses the last apply recorded for
    /// them, so a self-healing sync keeps what apply narrowed; objects the state does not record stay as rendered.
    @Test func withTheStateTheSlicesAndEgressPoliciesHoldTheRecordedAddresses() async throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        #expect(await render(["--out", out, "--repo", Self.repository]).exitCode == 0)
        let followers = files(under: out).filter { $0.hasSuffix(".endpointslice.yaml") || $0.hasSuffix(".networkpolicy.yaml") }.compactMap { path -> (String, String)? in
            let text = (try? String(contentsOfFile: "\(out)/\(path)", encoding: .utf8)) ?? ""
            guard let line = text.split(separator: "\n").first(where: { $0.contains("mcloud.io/endpoints-from:") }) else { return nil }
            return (path, String(line.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: CharacterSet(charactersIn: " \"")))
        }
        let slice = try #require(followers.first { $0.0.hasSuffix(".endpointslice.yaml") && $0.1.contains("DatabaseServer") })
        let policy = try #require(followers.first { $0.0.hasSuffix(".networkpolicy.yaml") && $0.1 == slice.1 })
        func address(_ path: String, _ apiVersion: String, _ kind: String) -> String {
            let parts = path.split(separator: "/").map(String.init)  // clusters/<cloud>/<namespace>/<name>.<kind>.yaml
            return "kubernetes.\(parts[1]).\(apiVersion).\(kind).\(parts[2]).\(parts[3].split(separator: ".").first ?? "")"
        }
        let annotations = #"{"mcloud.io/endpoints-from": "\#(slice.1)"}"#
        let recorded = [
            #"{"address": "\#(address(slice.0, "discovery.k8s.io/v1", "EndpointSlice"))", "provider": "kubernetes", "cloud": "c", "provider_id": "s", "attributes": {"kind": "EndpointSlice", "metadata": {"annotations": \#(annotations)}, "endpoints": [{"addresses": ["10.20.30.40"]}]}}"#,
            #"{"address": "\#(address(policy.0, "networking.k8s.io/v1", "NetworkPolicy"))", "provider": "kubernetes", "cloud": "c", "provider_id": "p", "attributes": {"kind": "NetworkPolicy", "metadata": {"annotations": \#(annotations)}, "spec": {"egress": [{"to": [{"ipBlock": {"cidr": "10.20.30.40/32"}}]}]}}}"#,
        ]
        let statePath = "\(scratch)/state.json"
        try #"{"format_version": 2, "lineage": "0b7f3c1e-2d4a-4c5b-9e8f-1a2b3c4d5e6f", "serial": 3, "application": "shop", "resources": [\#(recorded.joined(separator: ", "))]}"#
            .write(toFile: statePath, atomically: true, encoding: .utf8)
        let before = try String(contentsOfFile: statePath, encoding: .utf8)
        let stated = await render(["--out", out, "--state", "file://\(statePath)"])
        #expect(stated.exitCode == 0, "\(stated.stderr)")
        let sliceText = try String(contentsOfFile: "\(out)/\(slice.0)", encoding: .utf8)
        #expect(sliceText.contains("endpoints:\n- addresses:\n  - \"10.20.30.40\"\n  conditions:\n    ready: true\n"), "\(sliceText)")
        #expect(try String(contentsOfFile: "\(out)/\(policy.0)", encoding: .utf8).contains("cidr: \"10.20.30.40/32\""))
        // Only those two files differ from the render without the state, and the same state renders the same tree.
        let check = await render(["--check", out])
        #expect(check.exitCode == 2 && check.stdout.hasPrefix("\(out) differs from what mcloud renders now: 0 added, 2 changed, 0 removed\n"), "\(check.stdout)")
        #expect(check.stdout.contains("  changed  \(slice.0)\n") && check.stdout.contains("  changed  \(policy.0)\n"))
        #expect(await render(["--check", out, "--state", "file://\(statePath)"]).exitCode == 0)
        #expect(try String(contentsOfFile: statePath, encoding: .utf8) == before, "render wrote to the state")
        let empty = await render(["--check", out, "--state", "file://\(scratch)/none.json"])
        #expect(empty.exitCode == 1 && empty.stderr == "error: --state: the state records nothing yet: apply first, or render without --state\n", "\(empty.stderr)")
    }

    @Test func theFirstRenderNeedsTheRepository() async throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let run = await render(["--out", out])
        #expect(run.exitCode == 1)
        #expect(run.stderr == "error: render writes bootstrap/ for Argo CD and Flux, which read the tree from its Git repository: pass --repo URL (later renders of \(out) remember it)\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func oneChangedReplicaCountExitsTwoNamingTheFileWithItsDiff() async throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        #expect(await render(["--out", out, "--repo", Self.repository]).exitCode == 0)
        let path = try #require(files(under: out).first { $0.hasSuffix(".deployment.yaml") })
        let text = try String(contentsOfFile: out + "/" + path, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("  replicas: ") })
        let count = try #require(Int(line.dropFirst("  replicas: ".count)))
        try text.replacingOccurrences(of: "\n\(line)\n", with: "\n  replicas: \(count + 1)\n").write(toFile: out + "/" + path, atomically: true, encoding: .utf8)
        let run = await render(["--check", out])
        #expect(run.exitCode == 2)
        #expect(run.stderr == "")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(lines.prefix(6)) == [
            "\(out) differs from what mcloud renders now: 0 added, 1 changed, 0 removed", "  changed  \(path)", "", "--- a/\(path)", "+++ b/\(path)",
            lines.count > 5 ? lines[5] : "",
        ])
        #expect(lines.count > 5 && lines[5].hasPrefix("@@ -"))
        #expect(run.stdout.contains("\n-  replicas: \(count + 1)\n+  replicas: \(count)\n"))
        #expect(run.stdout.hasSuffix("\nRender with --out \(out) to bring it up to date.\n"))
    }

    /// With gcore-lux no longer offering Kubernetes, the shop leaves that cluster: its folder and Kustomization
    /// are removed files, and the check names every one of them.
    @Test func aClusterThePlacementLeavesExitsTwoNamingTheRemovedFiles() async throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        #expect(await render(["--out", out, "--repo", Self.repository]).exitCode == 0)
        let providers = scratch + "/providers"
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Providers", toPath: providers)
        let gcore = try String(contentsOfFile: providers + "/gcore.yaml", encoding: .utf8)
        try gcore.replacingOccurrences(of: "    kubernetes: true\n", with: "    kubernetes: false\n").write(toFile: providers + "/gcore.yaml", atomically: true, encoding: .utf8)
        let run = await render(["--check", out], providers: providers)
        #expect(run.exitCode == 2, "\(run.stderr)")
        let gone = files(under: out + "/clusters/gcore-lux").map { "clusters/gcore-lux/\($0)" } + ["bootstrap/flux/shop-gcore-lux.kustomization.yaml"]
        #expect(gone.count > 3)
        for path in gone {
            #expect(run.stdout.contains("\n  removed  \(path)\n"), "\(path) is not named as removed")
        }
        #expect(run.stdout.contains("\n  changed  bootstrap/argocd/shop.applicationset.yaml\n"))
        #expect(run.stdout.contains("\n-      - cloud: gcore-lux\n"))
    }

    @Test func aDirectoryThatCannotBeReadExitsOne() async throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let missing = await render(["--check", out, "--repo", Self.repository])
        #expect(missing.exitCode == 1)
        #expect(missing.stderr == "error: \(out) does not exist; render it with --out \(out) first\n")
        #expect(await render(["--out", out, "--repo", Self.repository]).exitCode == 0)
        // A link to itself cannot be read by anyone, root included.
        try FileManager.default.createSymbolicLink(atPath: out + "/clusters/loop.yaml", withDestinationPath: "loop.yaml")
        let unreadable = await render(["--check", out])
        #expect(unreadable.exitCode == 1)
        #expect(unreadable.stdout == "")
        #expect(unreadable.stderr == "error: cannot read \(out)/clusters/loop.yaml\n")
        try Data("not a marker\n".utf8).write(to: URL(fileURLWithPath: out + "/.mcloud-render"))
        let marker = await render(["--check", out])
        #expect(marker.exitCode == 1)
        #expect(marker.stderr.hasPrefix("error: \(out)/.mcloud-render is not a marker mcloud render wrote"))
    }

    /// The retail bank's connections to its Redis VMs have Secrets, derived from the operator's identity: without
    /// one, render names the first connection and the key file it looked for, and writes nothing.
    @Test func aRenderWithConnectionSecretsAndNoAgeIdentityExitsOneAndWritesNothing() async throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let missing = scratch + "/missing.key"
        let run = await mcloudRun(
            ["render", "-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", "\(repositoryRoot)/Providers", "--out", out, "--repo", Self.repository],
            environment: ["MCLOUD_AGE_KEY_FILE": missing]
        )
        #expect(run.exitCode == 1)
        #expect(run.stdout == "")
        #expect(run.stderr == "error: web@eu in aws-irl connects to sessions-redis@eu, and render writes its Secret (4 in all) only encrypted, with values derived from the operator's age identity, which is not available: no age key file at \(missing) (set MCLOUD_AGE_KEY_FILE or SOPS_AGE_KEY_FILE, or create it with age-keygen)\n")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// Encrypted files included, the same input gives the same bytes in another directory.
    @Test func theRetailBankRendersByteIdenticalTwiceSecretsIncluded() async throws {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let arguments = ["render", "-f", "\(repositoryRoot)/Manifests/retail-bank", "--providers", "\(repositoryRoot)/Providers", "--repo", Self.repository]
        #expect(await mcloudRun(arguments + ["--out", scratch + "/one"]).exitCode == 0)
        #expect(await mcloudRun(arguments + ["--out", scratch + "/two"]).exitCode == 0)
        let paths = files(under: scratch + "/one")
        #expect(paths == files(under: scratch + "/two"))
        #expect(paths.filter { $0.hasSuffix(".secret.yaml") }.count == 4)
        for path in paths {
            #expect(FileManager.default.contents(atPath: scratch + "/one/" + path) == FileManager.default.contents(atPath: scratch + "/two/" + path), "\(path) differs")
        }
    }
}
