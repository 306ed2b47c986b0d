/// Amounts as people read them: `1234.50 USD`, two decimals, rounded half away from zero.
public enum Money {
    public static func format(_ amount: Double, _ currency: String) -> String {
        "\(decimals(amount, places: 2)) \(currency)"
    }

    /// `amount` with exactly `places` decimals, without Foundation's locale-dependent formatting.
    public static func decimals(_ amount: Double, places: Int) -> String {
        guard amount.isFinite else { return amount > 0 ? "inf" : amount < 0 ? "-inf" : "nan" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(amount) * scale).rounded()
        guard scaled < 9e18 else { return NumberText.format(amount) }
        let units = Int(scaled)
        let whole = units / Int(scale)
        let fraction = units % Int(scale)
        let sign = amount < 0 && units != 0 ? "-" : ""
        guard places > 0 else { return "\(sign)\(whole)" }
        let digits = String(fraction)
        return "\(sign)\(whole).\(String(repeating: "0", count: places - digits.count))\(digits)"
    }
}
