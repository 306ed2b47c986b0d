import Testing

/// docs/alerts/mcloud-rules.yml as Prometheus reads it: valid, and each alert fires on the series it is for
/// (docs/alerts/mcloud-rules.test.yml).
@Suite struct AlertRulesTests {
    @Test func promtoolAcceptsTheRulesAndEachAlertFiresOnItsSeries() throws {
        try #require(Promtool.available, "install Debian's prometheus package (scripts/install-deps.sh) for promtool")
        let checked = try Promtool.run(["check", "rules", "\(repositoryRoot)/docs/alerts/mcloud-rules.yml"])
        #expect(checked.status == 0, "\(checked.output)")
        let tested = try Promtool.run(["test", "rules", "\(repositoryRoot)/docs/alerts/mcloud-rules.test.yml"])
        #expect(tested.status == 0, "\(tested.output)")
    }
}
