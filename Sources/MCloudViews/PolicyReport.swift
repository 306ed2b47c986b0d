public import MCloudCore

/// Every policy rule's verdict on a plan: the `policy` of the plan document. A failed mandatory rule fails the plan;
/// a failed advisory one is a warning.
public struct PolicyReport: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable {
        /// Every rule passed.
        case pass
        /// Only advisory rules failed.
        case warn
        /// A mandatory rule failed: the plan is refused.
        case fail
    }

    /// What a failed rule is about: a cell, a cloud or a resource address, and what happens to it.
    public struct Offender: Sendable, Hashable {
        public var name: String
        public var detail: String

        public init(name: String, detail: String) {
            self.name = name
            self.detail = detail
        }
    }

    public struct Verdict: Sendable, Hashable {
        public var policy: String
        /// The rule's place in the policy's `spec.rules`.
        public var index: Int
        /// The rule's key: `maxMonthlyCost`, `denyDelete`...
        public var rule: String
        public var level: Policy.Level
        /// Where the rule is written, `FILE:LINE:COL`.
        public var source: SourceLocation
        /// Passed, or not judged: nothing to fail.
        public var passed: Bool
        /// False when the plan lacks what the rule is about (a placement-only plan has no state, so no deletes,
        /// moves or recorded cost); `message` says so.
        public var judged: Bool
        public var message: String
        public var offenders: [Offender]

        public init(
            policy: String, index: Int, rule: String, level: Policy.Level, source: SourceLocation, passed: Bool, judged: Bool = true,
            message: String, offenders: [Offender]
        ) {
            self.policy = policy
            self.index = index
            self.rule = rule
            self.level = level
            self.source = source
            self.passed = passed
            self.judged = judged
            self.message = message
            self.offenders = offenders
        }

        /// `FILE:LINE:COL: error: policy guardrails, rule 2 (denyDelete, mandatory): message: offender (detail), ...`:
        /// a failed mandatory rule as an error, a failed advisory one as a warning, like every other diagnostic.
        public var diagnostic: String {
            let severity = level == .mandatory ? "error" : "warning"
            let named = offenders.isEmpty ? "" : ": " + offenders.map { "\($0.name) (\($0.detail))" }.joined(separator: ", ")
            return "\(source): \(severity): policy \(policy), rule \(index + 1) (\(rule), \(level.rawValue)): \(message)\(named)"
        }
    }

    /// In the order of the policies (by file and line) and of their rules.
    public var verdicts: [Verdict]

    public init(verdicts: [Verdict]) {
        self.verdicts = verdicts
    }

    public var outcome: Outcome {
        if verdicts.contains(where: { !$0.passed && $0.level == .mandatory }) { return .fail }
        if verdicts.contains(where: { !$0.passed }) { return .warn }
        return .pass
    }

    public var failed: [Verdict] { verdicts.filter { !$0.passed } }
}
