/// The operating system a database VM boots, as far as the recipes care: which distribution's packages exist, and
/// which suite a vendor repository serves it from. A cloud's catalog entry names the family of its VM image
/// (`spec.vm.image.family`).
public enum ImageFamily: String, CaseIterable, Sendable, Hashable, Comparable {
    case debian12 = "debian-12"
    case ubuntu2204 = "ubuntu-22.04"
    case ubuntu2404 = "ubuntu-24.04"

    public enum Distribution: String, Sendable {
        case debian, ubuntu
    }

    public var distribution: Distribution {
        switch self {
        case .debian12: .debian
        case .ubuntu2204, .ubuntu2404: .ubuntu
        }
    }

    /// The release's codename, which vendor repositories name their suites after.
    public var codename: String {
        switch self {
        case .debian12: "bookworm"
        case .ubuntu2204: "jammy"
        case .ubuntu2404: "noble"
        }
    }

    public var title: String {
        switch self {
        case .debian12: "Debian 12 (bookworm)"
        case .ubuntu2204: "Ubuntu 22.04 (jammy)"
        case .ubuntu2404: "Ubuntu 24.04 (noble)"
        }
    }

    public static func < (lhs: ImageFamily, rhs: ImageFamily) -> Bool {
        (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
    }
}
