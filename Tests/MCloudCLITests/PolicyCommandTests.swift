import Foundation
import Testing

/// Every rule kind of a Policy, passing and failing, at both levels, on the ledger fixture: an advisory rule that
/// fails is a warning (exit 0), a mandatory one an error that fails the plan (exit 1) and keeps it from being saved;
/// the JSON carries every rule's verdict and the human plan shows them.
@Suite struct PolicyCommandTests {
    /// Where the ledger was last applied, as the rule needs it.
    enum Baseline: Sendable {
        case none
        case applied(LedgerWorkspace.Prices)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// The rule's YAML without its level.
        var rule: String
        var baseline: Baseline
        /// The Application's residency rule, when the case needs one.
        var residency: String?
        var passed: Bool
        var message: String
        /// `NAME (DETAIL)`, as the diagnostic lists them.
        var offenders: [String] = []
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "maxMonthlyCost within the limit", rule: "maxMonthlyCost: 100", baseline: .none, passed: true,
            message: "the monthly cost after this plan, 52.10 EUR, is within the limit of 100.00 EUR"
        ),
        Case(
            name: "maxMonthlyCost above the limit", rule: "maxMonthlyCost: 50", baseline: .none, passed: false,
            message: "the monthly cost after this plan, 52.10 EUR, is above the limit of 50.00 EUR by 2.10 EUR", offenders: ["a (52.10 EUR a month)"]
        ),
        Case(
            name: "maxCostIncrease when the cost falls", rule: "maxCostIncrease: 10", baseline: .applied(.aTripled), passed: true,
            message: "the monthly cost changes by -50.00% (104.20 -> 52.10 EUR), within +10%"
        ),
        Case(
            name: "maxCostIncrease without a recorded cost", rule: "maxCostIncrease: 10", baseline: .none, passed: true,
            message: "no cost was recorded at the last apply to compare with"
        ),
        Case(
            name: "maxCostIncrease when the cost doubles", rule: "maxCostIncrease: 10", baseline: .applied(.halved), passed: false,
            message: "the monthly cost rises by +100.00% (26.05 -> 52.10 EUR), more than +10%",
            offenders: ["db@eu (+15.10 EUR a month)", "web@eu (+10.95 EUR a month)"]
        ),
        Case(
            name: "denyDelete of databases when nothing moves", rule: "denyDelete: { kinds: [Database] }", baseline: .applied(.today), passed: true,
            message: "no resource of kind Database is deleted or replaced"
        ),
        Case(
            name: "denyDelete of databases when the database moves", rule: "denyDelete: { kinds: [Database] }", baseline: .applied(.aTripled),
            passed: false, message: "3 resources of kind Database would be deleted or replaced",
            offenders: [
                "openstack.b.DatabaseServer.ledger-eu.db.0 (delete: no longer in the manifests)",
                "openstack.b.SecurityGroup.ledger-eu.db (delete: no longer in the manifests)",
                "openstack.b.Volume.ledger-eu.db.0 (delete: no longer in the manifests)",
            ]
        ),
        Case(
            name: "denyDelete by address pattern", rule: #"denyDelete: { addresses: ["kubernetes.*.apps/v1.Deployment.*"] }"#,
            baseline: .applied(.aTripled), passed: false,
            message: "1 resource of address kubernetes.*.apps/v1.Deployment.* would be deleted or replaced",
            offenders: ["kubernetes.b.apps/v1.Deployment.ledger-eu.web (delete: no longer in the manifests)"]
        ),
        Case(name: "denyMove when nothing moves", rule: "denyMove: { from: [b] }", baseline: .applied(.today), passed: true, message: "no cell leaves b"),
        Case(
            name: "denyMove when the cells leave b", rule: "denyMove: { from: [b] }", baseline: .applied(.aTripled), passed: false,
            message: "2 cells would leave b", offenders: ["db@eu (leaves b: primary b -> primary a)", "web@eu (leaves b: b 2 -> a 2)"]
        ),
        Case(
            name: "requireResidency held by the residency rule", rule: "requireResidency: { data: personal, audience: eu, allowed: [RU] }",
            baseline: .none, residency: "[RU]", passed: true, message: "every cell with personal data of audience eu runs only in [RU]"
        ),
        // Someone widened the Application's rule to the EU; the planner follows it to the cheaper cloud, the policy does not.
        Case(
            name: "requireResidency catches what an edited residency rule allowed", rule: "requireResidency: { data: personal, audience: eu, allowed: [RU] }",
            baseline: .none, residency: "[RU, EU]", passed: false, message: "2 cells with personal data of audience eu would run outside [RU]",
            offenders: ["db@eu (primary on a, which is [EU])", "web@eu (2 replicas on a, which is [EU])"]
        ),
    ]

    static func policy(_ rule: String, level: String) -> String {
        """
        apiVersion: mcloud/v1
        kind: Policy
        metadata: { name: guardrails }
        spec:
          rules:
            - { \(rule), level: \(level) }

        """
    }

    @Test(arguments: cases, ["advisory", "mandatory"])
    func eachRuleGivesItsVerdictAndExitCode(_ example: Case, _ level: String) async throws {
        let ledger = try LedgerWorkspace()
        defer { ledger.remove() }
        if let allowed = example.residency {
            try ledger.edit("  unrestrictedData: [personal]\n", "  residency:\n    - { data: personal, audience: eu, allowed: \(allowed) }\n")
        }
        try Self.policy(example.rule, level: level).write(toFile: ledger.app + "/policy.yaml", atomically: true, encoding: .utf8)
        var state = "file://\(ledger.folder)/none.json"
        if case .applied(let prices) = example.baseline { state = try await ledger.state(appliedAt: prices) }
        let out = ledger.folder + "/saved.plan"
        let arguments = ["-f", ledger.app, "--providers", ledger.providers, "--state", state, "--no-refresh"]

        let run = await mcloudRun(["plan", "--json", "--out", out] + arguments)
        let source = "\(ledger.app)/policy.yaml:6:7"
        let listed = example.offenders.isEmpty ? "" : ": " + example.offenders.joined(separator: ", ")
        let diagnostic = "\(source): \(level == "mandatory" ? "error" : "warning"): policy guardrails, rule 1 (\(example.rule.prefix { $0 != ":" }), \(level)): \(example.message)\(listed)\n"
        switch (example.passed, level) {
        case (true, _):
            #expect(run.exitCode == 0, "\(run.stderr)")
            #expect(run.stderr == "")
        case (false, "advisory"):
            #expect(run.exitCode == 0)
            #expect(run.stderr == diagnostic)
        default:
            #expect(run.exitCode == 1)
            #expect(run.stderr == diagnostic + "error: the plan breaks 1 mandatory policy rule; \(out) was not saved\n")
        }
        #expect(FileManager.default.fileExists(atPath: out) == (example.passed || level == "advisory"), "a plan failing a mandatory rule is never saved")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let policy = try #require(document["policy"] as? [String: Any])
        #expect(policy["outcome"] as? String == (example.passed ? "pass" : level == "mandatory" ? "fail" : "warn"))
        let verdict = try #require((policy["rules"] as? [[String: Any]])?.first)
        #expect(verdict["verdict"] as? String == (example.passed ? "pass" : "fail"))
        #expect(verdict["message"] as? String == example.message)
        #expect(verdict["level"] as? String == level)
        #expect(verdict["source"] as? String == source)
        let offenders = (verdict["offenders"] as? [[String: String]] ?? []).map { "\($0["name"] ?? "") (\($0["detail"] ?? ""))" }
        #expect(offenders == (example.passed ? [] : example.offenders))

        // The human plan shows the verdict.
        let human = await mcloudRun(["plan"] + arguments)
        let mark = example.passed ? "pass" : level == "mandatory" ? "FAIL" : "warn"
        #expect(human.stdout.contains("  \(mark)  \(level.padding(toLength: 9, withPad: " ", startingAt: 0))  guardrails #1 \(example.rule.prefix { $0 != ":" })  \(example.message)\n"), "\(human.stdout)")
    }

    /// A mandatory rule that fails stops apply before it asks or changes anything, and a saved plan whose verdicts
    /// failed (made by hand, since plan --out refuses to save one) is not applied.
    @Test func applyRefusesAPlanThatBreaksAMandatoryRule() async throws {
        let ledger = try LedgerWorkspace()
        defer { ledger.remove() }
        try Self.policy("denyMove: { from: [b] }", level: "mandatory").write(toFile: ledger.app + "/policy.yaml", atomically: true, encoding: .utf8)
        let state = try await ledger.state(appliedAt: .aTripled)
        let path = String(state.dropFirst("file://".count))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let arguments = ["-f", ledger.app, "--providers", ledger.providers, "--state", state]
        let apply = await mcloudRun(["apply", "--auto-approve", "--no-refresh"] + arguments)
        #expect(apply.exitCode == 1)
        #expect(apply.stderr.hasSuffix("error: the plan breaks 1 mandatory policy rule; nothing was changed\n"))
        #expect(!apply.stdout.contains("Apply complete"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        // The same plan saved while the rule was advisory, its verdict then set to fail by hand.
        try Self.policy("denyMove: { from: [b] }", level: "advisory").write(toFile: ledger.app + "/policy.yaml", atomically: true, encoding: .utf8)
        let saved = ledger.folder + "/saved.plan"
        #expect(await mcloudRun(["plan", "--no-refresh", "--out", saved] + arguments).exitCode == 0)
        let text = try String(contentsOfFile: saved, encoding: .utf8)
        let forged = text.replacingOccurrences(of: "\"level\": \"advisory\"", with: "\"level\": \"mandatory\"")
        try #require(forged != text)
        try forged.write(toFile: saved, atomically: true, encoding: .utf8)
        let shown = await mcloudRun(["show", saved])
        #expect(shown.stdout.contains("  FAIL  mandatory  guardrails #1 denyMove  2 cells would leave b\n"))
        let refused = await mcloudRun(["apply", saved] + arguments)
        #expect(refused.exitCode == 1)
        #expect(refused.stderr.hasSuffix("error: the plan breaks 1 mandatory policy rule; \(saved) is not applied\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// `plan --placement-only` used to skip every rule, so a cost ceiling far below the placement's cost passed.
    /// What the placement alone shows is judged there; what needs the state says it was not judged, and passes.
    @Test("a placement-only plan judges the rules the placement can and says which it cannot", arguments: [
        ("maxMonthlyCost: 50", "fail", "the monthly cost after this plan, 52.10 EUR, is above the limit of 50.00 EUR by 2.10 EUR", ["a (52.10 EUR a month)"]),
        ("maxMonthlyCost: 100", "pass", "the monthly cost after this plan, 52.10 EUR, is within the limit of 100.00 EUR", []),
        ("requireResidency: { data: personal, audience: eu, allowed: [EU] }", "pass", "every cell with personal data of audience eu runs only in [EU]", []),
        ("maxCostIncrease: 10", "not_judged", "not judged without a state: a placement-only plan has no cost recorded at the last apply to compare with", []),
        ("denyDelete: { kinds: [Database] }", "not_judged", "not judged without a state: a placement-only plan plans no resource changes", []),
        ("denyMove: { from: [b] }", "not_judged", "not judged without a state: a placement-only plan reads no placement recorded at the last apply", []),
    ] as [(String, String, String, [String])])
    func aPlacementOnlyPlanJudgesWhatThePlacementShows(rule: String, verdict: String, message: String, offenders: [String]) async throws {
        let ledger = try LedgerWorkspace()
        defer { ledger.remove() }
        try Self.policy(rule, level: "mandatory").write(toFile: ledger.app + "/policy.yaml", atomically: true, encoding: .utf8)
        let arguments = ["plan", "--placement-only", "-f", ledger.app, "--providers", ledger.providers]
        let run = await mcloudRun(arguments + ["--json"])
        let name = rule.prefix { $0 != ":" }
        if verdict == "fail" {
            #expect(run.exitCode == 1)
            #expect(run.stderr == "\(ledger.app)/policy.yaml:6:7: error: policy guardrails, rule 1 (\(name), mandatory): \(message): \(offenders.joined(separator: ", "))\n"
                + "error: the plan breaks 1 mandatory policy rule; apply would refuse it\n")
        } else {
            #expect(run.exitCode == 0, "\(run.stderr)")
            #expect(run.stderr == "")
        }
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let policy = try #require(document["policy"] as? [String: Any])
        #expect(policy["outcome"] as? String == (verdict == "fail" ? "fail" : "pass"))
        let judged = try #require((policy["rules"] as? [[String: Any]])?.first)
        #expect(judged["verdict"] as? String == verdict)
        #expect(judged["message"] as? String == message)
        let human = await mcloudRun(arguments)
        let mark = ["fail": "FAIL", "pass": "pass", "not_judged": "----"][verdict] ?? ""
        #expect(human.stdout.contains("  \(mark)  mandatory  guardrails #1 \(name)  \(message)\n"), "\(human.stdout)")
    }

    @Test func withoutPoliciesTheJSONListsNoRulesAndTheViewNoSection() async throws {
        let ledger = try LedgerWorkspace()
        defer { ledger.remove() }
        let arguments = ["-f", ledger.app, "--providers", ledger.providers, "--state", "file://\(ledger.folder)/none.json"]
        let json = await mcloudRun(["plan", "--json"] + arguments)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((document["policy"] as? [String: Any])?["outcome"] as? String == "pass")
        #expect(((document["policy"] as? [String: Any])?["rules"] as? [Any])?.isEmpty == true)
        #expect(!(await mcloudRun(["plan"] + arguments)).stdout.contains("Policies:"))
    }
}
