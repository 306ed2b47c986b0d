import Foundation
import Testing

/// A write load of one row a second against a primary that is then lost, and what a restored server holds of it: the
/// rows lost and the RPO from the commit times (docs/dr.md).
struct WriteLoad {
    struct Row {
        var id: Int
        var committedAt: Double
    }

    var acknowledged: [Row] = []

    /// Records row `id`, acknowledged with its commit time (epoch seconds) as the primary's clock gave it.
    mutating func acknowledge(_ id: Int, answer: String) throws {
        acknowledged.append(Row(id: id, committedAt: try #require(Double(answer.trimmingCharacters(in: .whitespacesAndNewlines)))))
    }

    /// A whole second after row `id`'s commit (and its statement a few milliseconds before) and before the next row's.
    func secondAfter(row id: Int) -> Int {
        let (row, next) = (acknowledged[id - 1], acknowledged[id])
        let second = (row.committedAt + 0.2).rounded(.up)
        #expect(second < next.committedAt, "rows \(id) and \(id + 1) are less than a second apart")
        return Int(second)
    }

    /// `restored` is `COUNT(*) MAX(id) <newest commit, epoch seconds>` as the restored server's SQL prints them: the
    /// restored rows must be a prefix of the acknowledged ones and the RPO within `bound` seconds. Prints the figures.
    func expectRestored(_ restored: String, within bound: Double, label: String) throws {
        let fields = restored.split(whereSeparator: \.isWhitespace).map(String.init)
        let count = try #require(Int(fields.first ?? "")), newestID = try #require(Int(fields.dropFirst().first ?? ""))
        let newestAt = try #require(Double(fields.dropFirst(2).first ?? ""))
        let rpo = try #require(acknowledged.last).committedAt - newestAt
        print("\(label): \(count) of \(acknowledged.count) acknowledged rows restored, \(acknowledged.count - count) lost, RPO \(String(format: "%.1f", rpo)) s")
        #expect(count == newestID, "the restored rows are not a prefix of the acknowledged ones")
        #expect(rpo <= bound, "RPO \(rpo) s: \(acknowledged.count - count) rows lost")
    }
}
