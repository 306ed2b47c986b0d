/// CPU in millicores, parsed from Kubernetes quantities: `500m`, `2`, `1.5`.
public struct CPUQuantity: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var millicores: Int

    public init(millicores: Int) { self.millicores = millicores }

    public var cores: Double { Double(millicores) / 1000 }

    /// The canonical Kubernetes text: `500m`, or `2` for whole cores.
    public var description: String {
        millicores % 1000 == 0 ? String(millicores / 1000) : "\(millicores)m"
    }

    public static func < (lhs: CPUQuantity, rhs: CPUQuantity) -> Bool { lhs.millicores < rhs.millicores }

    public static func parse(_ text: String) -> Result<CPUQuantity, QuantityError> {
        switch DecimalQuantity.parse(text) {
        case .failure(let error): return .failure(error)
        case .success(let quantity):
            let millicores: DecimalQuantity
            switch quantity.suffix {
            case "m": millicores = quantity
            case "": millicores = quantity.scaled(byPowerOfTen: 3)
            default:
                return .failure(.unit(text, "cpu takes no unit but m (millicores): write 500m or 2"))
            }
            switch millicores.wholeValue {
            case .success(let whole): return .success(CPUQuantity(millicores: whole))
            case .failure(.overflow): return .failure(.tooLarge(text))
            case .failure(.fraction): return .failure(.precision(text, "cpu is counted in whole millicores; 1m is the smallest step"))
            }
        }
    }
}

/// Memory in bytes, parsed from Kubernetes quantities: `512Mi`, `4Gi`, `1G`, or a bare number of bytes.
public struct MemoryQuantity: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var bytes: Int

    public init(bytes: Int) { self.bytes = bytes }

    public var gibibytes: Double { Double(bytes) / 1_073_741_824 }

    public var description: String {
        for (suffix, factor) in [("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)] where bytes % factor == 0 && bytes > 0 {
            return "\(bytes / factor)\(suffix)"
        }
        return String(bytes)
    }

    public static func < (lhs: MemoryQuantity, rhs: MemoryQuantity) -> Bool { lhs.bytes < rhs.bytes }

    static let binary: [String: Int] = ["Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60]
    static let decimal: [String: Int] = ["": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18]

    public static func parse(_ text: String) -> Result<MemoryQuantity, QuantityError> {
        switch DecimalQuantity.parse(text) {
        case .failure(let error): return .failure(error)
        case .success(let quantity):
            let bytes: DecimalQuantity
            if let factor = binary[quantity.suffix] {
                guard let product = quantity.multiplied(by: factor) else { return .failure(.tooLarge(text)) }
                bytes = product
            } else if let power = decimal[quantity.suffix] {
                bytes = quantity.scaled(byPowerOfTen: power)
            } else if quantity.suffix == "m" {
                return .failure(.unit(text, "memory in m means thousandths of a byte; did you mean \(quantity.digitsText)Mi?"))
            } else {
                return .failure(.unit(text, "memory units are Ki, Mi, Gi, Ti (binary) or k, M, G, T (decimal)"))
            }
            switch bytes.wholeValue {
            case .success(let whole): return .success(MemoryQuantity(bytes: whole))
            case .failure(.overflow): return .failure(.tooLarge(text))
            case .failure(.fraction): return .failure(.precision(text, "memory must come to a whole number of bytes"))
            }
        }
    }
}

public enum QuantityError: Error, Hashable, Sendable, CustomStringConvertible {
    case syntax(String)
    case negative(String)
    case unit(String, String)
    case precision(String, String)
    case tooLarge(String)

    public var description: String {
        switch self {
        case .syntax(let text): return "\"\(text)\" is not a quantity (a number with an optional unit, such as 500m, 2, 512Mi or 4Gi)"
        case .negative(let text): return "\"\(text)\" is negative; quantities must be zero or more"
        case .unit(let text, let hint): return "\"\(text)\" has a wrong unit: \(hint)"
        case .precision(let text, let hint): return "\"\(text)\" is too precise: \(hint)"
        case .tooLarge(let text): return "\"\(text)\" is too large"
        }
    }
}

/// A decimal number with a unit suffix, kept exact: the value is `significand * 10^exponent`.
struct DecimalQuantity {
    var significand: Int
    var exponent: Int
    var suffix: String
    var digitsText: String

    static let maxDigits = 18

    static func parse(_ text: String) -> Result<DecimalQuantity, QuantityError> {
        var chars = Substring(text)
        if chars.first == "-" { return .failure(.negative(text)) }
        if chars.first == "+" { chars = chars.dropFirst() }
        let numberEnd = chars.firstIndex { !($0.isASCII && ($0.isNumber || $0 == ".")) } ?? chars.endIndex
        let number = chars[..<numberEnd]
        var suffix = String(chars[numberEnd...])
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !number.isEmpty, parts.count <= 2, !parts.contains(where: { $0.contains(".") }),
              !(parts.count == 2 && parts[0].isEmpty && parts[1].isEmpty) else {
            return .failure(.syntax(text))
        }
        let integer = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        var exponent = -fraction.count
        // Kubernetes allows a decimal exponent (1e3, 2E6) as the suffix; `Ei` is the exbibyte unit.
        if let first = suffix.first, first == "e" || first == "E", suffix.count > 1, suffix != "Ei" {
            var power = suffix.dropFirst()
            let negative = power.first == "-"
            if power.first == "-" || power.first == "+" { power = power.dropFirst() }
            guard !power.isEmpty, power.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(power), value < 100 else {
                return .failure(.syntax(text))
            }
            exponent += negative ? -value : value
            suffix = ""
        }
        let digits = (integer + fraction).drop { $0 == "0" }
        guard digits.count <= maxDigits else { return .failure(.tooLarge(text)) }
        guard let significand = digits.isEmpty ? 0 : Int(digits) else { return .failure(.syntax(text)) }
        return .success(DecimalQuantity(significand: significand, exponent: exponent, suffix: suffix, digitsText: String(number)))
    }

    func scaled(byPowerOfTen power: Int) -> DecimalQuantity {
        var copy = self
        copy.exponent += power
        return copy
    }

    func multiplied(by factor: Int) -> DecimalQuantity? {
        let (product, overflow) = significand.multipliedReportingOverflow(by: factor)
        guard !overflow else { return nil }
        var copy = self
        copy.significand = product
        return copy
    }

    enum WholeFailure: Error {
        case fraction
        case overflow
    }

    /// The exact integer value; fails when it has a fraction or does not fit in an Int.
    var wholeValue: Result<Int, WholeFailure> {
        var value = significand
        var exponent = exponent
        while exponent < 0 {
            guard value % 10 == 0 else { return .failure(.fraction) }
            value /= 10
            exponent += 1
        }
        while exponent > 0 {
            let (product, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return .failure(.overflow) }
            value = product
            exponent -= 1
        }
        return .success(value)
    }
}

/// An exact non-negative decimal fraction such as a `maxShare` of 0.67, so floor(0.29 * 100) is 29, not 28.
public struct Ratio: Hashable, Sendable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public init(numerator: Int, denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    public static let one = Ratio(numerator: 1, denominator: 1)

    /// Reads decimal text exactly: `0.67` is 67/100.
    public init?(decimal text: String) {
        guard case .success(let quantity) = DecimalQuantity.parse(text), quantity.suffix.isEmpty,
              quantity.exponent <= 0, -quantity.exponent <= 15 else { return nil }
        var denominator = 1
        for _ in 0 ..< -quantity.exponent { denominator *= 10 }
        self.init(numerator: quantity.significand, denominator: denominator)
    }

    public var value: Double { Double(numerator) / Double(denominator) }

    /// floor(self * count), exactly.
    public func floorOfProduct(_ count: Int) -> Int {
        (numerator * count) / denominator
    }

    public var description: String { NumberText.format(value) }
}

/// Numbers as people write them: `2`, not `2.0`.
public enum NumberText {
    public static func format(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(.towardZero), abs(value) < 1e15 { return String(Int(value)) }
        return "\(value)"
    }
}
