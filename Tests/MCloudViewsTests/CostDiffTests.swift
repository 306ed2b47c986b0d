import MCloudCore
import MCloudProvider
@testable import MCloudViews
import Testing

/// The cost diff between the cost the state recorded and the plan's: every name of either side, in the
/// application's currency.
@Suite struct CostDiffTests {
    static let after = PlacementReport.Cost(
        currency: "RUB", monthly: 300, byCloud: [.init(name: "vk-msk", amount: 200), .init(name: "sel-msk", amount: 100)],
        byCell: [.init(name: "web@ru", amount: 300)], byCDN: [], lowerBound: 300, gap: 0
    )

    @Test func everyNameOfEitherSideHasADeltaAndAMissingSideCountsZero() {
        let recorded = AppliedPlacement.Cost(currency: "RUB", monthly: 250, byCloud: ["sel-msk": 150, "aws-fra": 100], byCell: ["web@ru": 200, "gone@ru": 50], byCDN: ["static": 0])
        let diff = CostDiff(recorded: recorded, after: Self.after, currency: "RUB", rate: { _ in nil })
        #expect(diff.delta?.monthly == 50)
        #expect(diff.delta?.byCloud == [.init(name: "aws-fra", amount: -100), .init(name: "sel-msk", amount: -50), .init(name: "vk-msk", amount: 200)])
        #expect(diff.delta?.byCell == [.init(name: "gone@ru", amount: -50), .init(name: "web@ru", amount: 100)])
        #expect(diff.delta?.byCDN == [.init(name: "static", amount: 0)])
        #expect(diff.percentChange == 20)
        #expect(diff.after.byCloud.map(\.name) == ["sel-msk", "vk-msk"])
    }

    /// The application's currency changed since the last apply: the record converts with its rate, or is left out.
    @Test func aCostRecordedInAnotherCurrencyIsConvertedOrLeftOut() {
        let recorded = AppliedPlacement.Cost(currency: "USD", monthly: 3, byCloud: ["vk-msk": 3], byCell: ["web@ru": 3], byCDN: [:])
        let converted = CostDiff(recorded: recorded, after: Self.after, currency: "RUB", rate: { $0 == "USD" ? 92.5 : nil })
        #expect(converted.before?.monthly == 277.5)
        #expect(converted.delta?.byCloud == [.init(name: "sel-msk", amount: 100), .init(name: "vk-msk", amount: -77.5)])
        let unknown = CostDiff(recorded: recorded, after: Self.after, currency: "RUB", rate: { _ in nil })
        #expect(unknown.before == nil && unknown.delta == nil && unknown.percentChange == nil)
        #expect(CostView.render(unknown) == "")
    }

    @Test func aDestroyCostsNothingAfter() {
        let recorded = AppliedPlacement.Cost(currency: "RUB", monthly: 250, byCloud: ["sel-msk": 250], byCell: ["web@ru": 250], byCDN: [:])
        let diff = CostDiff(recorded: recorded, after: nil, currency: "RUB", rate: { _ in nil })
        #expect(diff.after == .zero)
        #expect(diff.delta?.monthly == -250)
        #expect(diff.percentChange == -100)
        #expect(CostView.render(diff).hasPrefix("Monthly cost against the last apply (RUB): 250.00 -> 0.00, -250.00 (-100.00%)\n"))
    }
}
