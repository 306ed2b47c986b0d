/// The difference of two texts as a unified diff (`diff -u`, `git diff`): hunks of changed lines with three lines of
/// context, found by Myers' O(ND) algorithm, so the output is the shortest edit and `git apply` takes it.
public enum UnifiedDiff {
    /// Lines of context around each change.
    static let context = 3
    /// Myers keeps one vector per edit distance; past this many cells the texts are treated as wholly different
    /// (one hunk replacing every line) rather than holding gigabytes for a file nobody reads as a diff.
    static let maximumTraceCells = 20_000_000

    enum Edit: Equatable {
        case equal(old: Int, new: Int)
        case delete(old: Int)
        case insert(new: Int)
    }

    /// `--- a/PATH`, `+++ b/PATH` and the hunks; empty when the texts are equal.
    public static func diff(old: String, new: String, oldName: String, newName: String) -> String {
        let a = lines(old), b = lines(new)
        let edits = script(a, b)
        guard edits.contains(where: { if case .equal = $0 { false } else { true } }) else { return "" }
        var out = "--- \(oldName)\n+++ \(newName)\n"
        for hunk in hunks(edits) {
            out += header(hunk, edits: edits)
            for edit in edits[hunk] {
                switch edit {
                case .equal(let index, _): out += line(" ", a[index])
                case .delete(let index): out += line("-", a[index])
                case .insert(let index): out += line("+", b[index])
                }
            }
        }
        return out
    }

    /// Each line with its line break, so a last line without one differs from the same line with one.
    static func lines(_ text: String) -> [Substring] {
        var result: [Substring] = []
        var start = text.startIndex
        while start < text.endIndex {
            let end = text[start...].firstIndex(of: "\n").map { text.index(after: $0) } ?? text.endIndex
            result.append(text[start..<end])
            start = end
        }
        return result
    }

    private static func line(_ prefix: String, _ text: Substring) -> String {
        text.hasSuffix("\n") ? prefix + text : prefix + text + "\n\\ No newline at end of file\n"
    }

    /// The shortest edit script from `a` to `b`, in order.
    static func script(_ a: [Substring], _ b: [Substring]) -> [Edit] {
        let n = a.count, m = b.count, total = n + m
        let offset = total + 1
        var frontier = [Int](repeating: 0, count: 2 * total + 3)
        var trace: [[Int]] = []
        let limit = max(1, maximumTraceCells / frontier.count)
        var found = false
        search: for distance in 0...total {
            guard distance <= limit else { break }
            trace.append(frontier)
            for diagonal in stride(from: -distance, through: distance, by: 2) {
                var x = diagonal == -distance || (diagonal != distance && frontier[offset + diagonal - 1] < frontier[offset + diagonal + 1])
                    ? frontier[offset + diagonal + 1] : frontier[offset + diagonal - 1] + 1
                var y = x - diagonal
                while x < n, y < m, a[x] == b[y] {
                    x += 1
                    y += 1
                }
                frontier[offset + diagonal] = x
                if x >= n, y >= m {
                    found = true
                    break search
                }
            }
        }
        guard found else { return (0..<n).map { .delete(old: $0) } + (0..<m).map { .insert(new: $0) } }
        var edits: [Edit] = []
        var x = n, y = m
        for distance in stride(from: trace.count - 1, through: 0, by: -1) {
            let vector = trace[distance]
            let diagonal = x - y
            let previous = diagonal == -distance || (diagonal != distance && vector[offset + diagonal - 1] < vector[offset + diagonal + 1])
                ? diagonal + 1 : diagonal - 1
            let previousX = vector[offset + previous], previousY = previousX - previous
            while x > previousX, y > previousY {
                edits.append(.equal(old: x - 1, new: y - 1))
                x -= 1
                y -= 1
            }
            if distance > 0 {
                edits.append(x == previousX ? .insert(new: y - 1) : .delete(old: x - 1))
            }
            x = previousX
            y = previousY
        }
        return edits.reversed()
    }

    /// Ranges of the script to print: each change with its context, changes closer than twice the context joined.
    static func hunks(_ edits: [Edit]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        for (index, edit) in edits.enumerated() {
            if case .equal = edit { continue }
            let range = max(0, index - context)..<min(edits.count, index + context + 1)
            if let last = ranges.last, range.lowerBound <= last.upperBound {
                ranges[ranges.count - 1] = last.lowerBound..<range.upperBound
            } else {
                ranges.append(range)
            }
        }
        return ranges
    }

    /// `@@ -start,count +start,count @@`, as diff writes it: a count of 1 left out, an empty side starting at the
    /// line before.
    private static func header(_ hunk: Range<Int>, edits: [Edit]) -> String {
        func count(_ slice: ArraySlice<Edit>) -> (old: Int, new: Int) {
            slice.reduce(into: (old: 0, new: 0)) { counts, edit in
                switch edit {
                case .equal: counts.old += 1; counts.new += 1
                case .delete: counts.old += 1
                case .insert: counts.new += 1
                }
            }
        }
        let before = count(edits[..<hunk.lowerBound]), inside = count(edits[hunk])
        func side(_ before: Int, _ count: Int) -> String {
            let first = count == 0 ? before : before + 1
            return count == 1 ? "\(first)" : "\(first),\(count)"
        }
        return "@@ -\(side(before.old, inside.old)) +\(side(before.new, inside.new)) @@\n"
    }
}
