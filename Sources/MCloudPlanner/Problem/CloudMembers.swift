/// Which cells use each cloud, kept up to date as cells move. Arrays with positions rather than sets, because a
/// set's order changes from process to process and the search must pick "at random" the same way every run.
struct CloudMembers {
    private var items: [[Int]]
    private var positions: [[Int: Int]]

    init(clouds: Int) {
        items = Array(repeating: [], count: clouds)
        positions = Array(repeating: [:], count: clouds)
    }

    func members(of cloud: Int) -> [Int] { items[cloud] }

    mutating func insert(_ item: Int, into cloud: Int) {
        guard positions[cloud][item] == nil else { return }
        positions[cloud][item] = items[cloud].count
        items[cloud].append(item)
    }

    mutating func remove(_ item: Int, from cloud: Int) {
        guard let position = positions[cloud].removeValue(forKey: item) else { return }
        let last = items[cloud].removeLast()
        if position < items[cloud].count {
            items[cloud][position] = last
            positions[cloud][last] = position
        }
    }
}
