import MCloudCore

/// The policy verdicts as people read them: one line per rule, and under a failed one what it is about.
public enum PolicyView {
    /// Empty when there are no rules.
    public static func render(_ report: PolicyReport) -> String {
        guard !report.verdicts.isEmpty else { return "" }
        let failed = report.verdicts.filter { !$0.passed && $0.level == .mandatory }.count
        let warned = report.verdicts.filter { !$0.passed && $0.level == .advisory }.count
        let unjudged = report.verdicts.filter { !$0.judged }.count
        let skipped = unjudged == 0 ? "" : ", \(unjudged) not judged"
        var text = "Policies: \(report.verdicts.count - failed - warned - unjudged) passed\(skipped), \(warned) warning\(warned == 1 ? "" : "s"), \(failed) failed\n"
        let width = report.verdicts.map { "\($0.policy) #\($0.index + 1) \($0.rule)".count }.max() ?? 0
        for verdict in report.verdicts {
            let mark = !verdict.judged ? "----" : verdict.passed ? "pass" : verdict.level == .mandatory ? "FAIL" : "warn"
            let name = "\(verdict.policy) #\(verdict.index + 1) \(verdict.rule)"
            text += "  \(mark)  \(padded(verdict.level.rawValue, 9))  \(padded(name, width))  \(verdict.message)\n"
            for offender in verdict.offenders where !verdict.passed {
                text += "          \(offender.name): \(offender.detail)\n"
            }
        }
        return text
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
