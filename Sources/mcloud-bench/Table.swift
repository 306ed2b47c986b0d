/// A plain text table with columns padded to their widest cell.
struct Table {
    var header: [String]
    var rows: [[String]] = []

    var text: String {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.enumerated().map { $0.element.padding(to: widths[$0.offset]) }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

extension String {
    func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
