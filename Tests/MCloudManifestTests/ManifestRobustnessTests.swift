import MCloudCore
import Foundation
import MCloudManifest
import Testing

/// Seeded random damage to the bundled example files: whatever the bytes, the loader returns, never crashes,
/// and every diagnostic points at a real place (or is one of the few that concern a whole file or the whole input).
@Suite struct ManifestRobustnessTests {
    static let seeds: [UInt64] = Array(0..<2_000)

    @Test(arguments: seeds)
    func damagedExamplesGiveWellFormedDiagnostics(seed: UInt64) throws {
        let (sources, context) = try Self.damagedSources(seed: seed)
        let set = ManifestLoader.load(sources)

        let lastLines = Dictionary(uniqueKeysWithValues: sources.map { ($0.file, Self.lastReportableLine($0.bytes)) })
        for diagnostic in set.diagnostics {
            #expect(!diagnostic.message.contains("an mcloud bug"), "\(context): \(diagnostic)")
            if let location = diagnostic.location {
                let lastLine = lastLines[location.file]
                #expect(lastLine != nil, "\(context): names a file that was not given: \(diagnostic)")
                #expect(location.line >= 1 && location.column >= 1, "\(context): \(diagnostic)")
                #expect(location.line <= (lastLine ?? 0), "\(context): past the end of the file: \(diagnostic)")
                #expect(diagnostic.file == location.file, "\(context): \(diagnostic)")
            } else if let file = diagnostic.file {
                #expect(lastLines[file] != nil && Self.fileMessages.contains(diagnostic.message), "\(context): \(diagnostic)")
            } else {
                #expect(Self.inputMessages.contains(diagnostic.message), "\(context): \(diagnostic)")
            }
        }
        #expect(set.diagnostics == set.diagnostics.sorted(), "\(context): diagnostics are not sorted")
        let hasErrors = set.diagnostics.contains { $0.severity == .error }
        #expect((set.model == nil) == hasErrors, "\(context): a model must come exactly when there is no error")
    }

    /// A sample of the seeds really breaks the input, so the test above is not passing on undamaged files.
    @Test func mostDamageIsReported() throws {
        var failing = 0
        for seed in Self.seeds.prefix(100) {
            let (sources, _) = try Self.damagedSources(seed: seed)
            if ManifestLoader.load(sources).diagnostics.contains(where: { $0.severity == .error }) { failing += 1 }
        }
        #expect(failing >= 50, "only \(failing) of 100 damaged inputs gave an error")
    }

    /// One application and one catalog file, so the cross-document checks run too (the whole catalog would only
    /// repeat the same clouds and double the time); one of those files is damaged by one to three mutations.
    /// The context names the seed, the mutations and the file.
    static func damagedSources(seed: UInt64) throws -> (sources: [ManifestLoader.Source], context: String) {
        var random = SplitMix64(seed: seed)
        let corpus = try #require(Corpus.shared)
        var sources = corpus.applications[random.below(corpus.applications.count)]
            + [corpus.providers[random.below(corpus.providers.count)]]
        let target = random.below(sources.count)
        var mutations: [String] = []
        for _ in 0...random.below(3) {
            let mutation = Mutation.allCases[random.below(Mutation.allCases.count)]
            sources[target].bytes = mutation.apply(to: sources[target].bytes, &random)
            mutations.append("\(mutation)")
        }
        return (sources, "seed \(seed): \(mutations.joined(separator: ", ")) of \(sources[target].file)")
    }

    /// The last line a diagnostic may name: the line after the last line break, where the stream ends; or, when the
    /// file does not end with a line break, one more, because libyaml ends an unfinished last line before it reports
    /// the end of the stream (so a file cut mid-line gets "unexpected end of stream" one line below its last line).
    static func lastReportableLine(_ bytes: [UInt8]) -> Int {
        let endsWithBreak = bytes.last.map { $0 == 0x0A || $0 == 0x0D } ?? true
        return lineBreaks(bytes) + 1 + (endsWithBreak ? 0 : 1)
    }

    /// Line breaks as YAML 1.1 (libyaml) counts them: LF, CR LF, a lone CR, NEL, LS and PS.
    static func lineBreaks(_ bytes: [UInt8]) -> Int {
        var count = 0
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case 0x0A: count += 1
            case 0x0D where index + 1 >= bytes.count || bytes[index + 1] != 0x0A: count += 1
            case 0xC2 where index + 1 < bytes.count && bytes[index + 1] == 0x85: count += 1
            case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                count += 1
            default: break
            }
            index += 1
        }
        return count
    }

    /// Diagnostics about a whole file, without a line.
    static let fileMessages: Set<String> = ["cannot start the YAML parser"]
    /// Diagnostics about the input as a whole, without a file.
    static let inputMessages: Set<String> = [
        "no Application manifest found; exactly one is required",
        "no Cloud manifests found; pass --providers DIR pointing at the cloud catalog",
    ]

    @Test func generatorIsDeterministic() {
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        #expect((0..<8).map { _ in first.next() } == (0..<8).map { _ in second.next() })
        // The reference value of SplitMix64 for seed 0, so the sequence (and every seed's meaning) never drifts.
        var zero = SplitMix64(seed: 0)
        #expect(zero.next() == 0xE220_A839_7B1D_CDAF)
    }
}

/// The example files, read once: each application's manifests, and the cloud catalog.
struct Corpus: Sendable {
    var applications: [[ManifestLoader.Source]]
    var providers: [ManifestLoader.Source]

    static let shared: Corpus? = {
        func read(_ directory: String) -> [ManifestLoader.Source] {
            Repository.yamlFiles(in: directory).compactMap { path in
                FileManager.default.contents(atPath: path).map { ManifestLoader.Source(file: path, bytes: Array($0)) }
            }
        }
        let applications = Repository.subdirectories(of: Repository.manifests).map { read(Repository.manifests + "/" + $0) }
        let providers = read(Repository.providers)
        guard applications.count >= 3, applications.allSatisfy({ !$0.isEmpty }), !providers.isEmpty else { return nil }
        return Corpus(applications: applications, providers: providers)
    }()
}

extension SplitMix64 {
    mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }
}

/// Ways to damage a file: at the byte level, the line level, and the value level.
enum Mutation: CaseIterable {
    case dropBytes
    case duplicateBytes
    case flipBit
    case randomByte
    case insertSpecial
    case truncate
    case shuffleLines
    case dropLine
    case duplicateLine
    case swapLines
    case reindentLine
    case retypeValue

    /// Characters that mean something to YAML or to the reader.
    static let specials: [[UInt8]] = ["\t", "\0", "\r", "\u{FEFF}", "\"", "'", "[", "]", "{", "}", ":", ": ", "- ", "#", "&a ", "*a", "!!str ", "---\n", "...\n", "? ", "|", ">", "%YAML 1.1\n", "\u{85}", "\u{2028}", "é"].map { Array($0.utf8) }

    /// Replacement values: other types, edge numbers, empty and hostile values.
    static let values = [
        "word", "42", "-1", "0", "3.5", "1e999", "-.inf", ".nan", "0x1F", "0o17", "99999999999999999999", "[a, b]", "[]",
        "{ x: 1 }", "{}", "null", "~", "\"\"", "''", "yes", "on", "true", "False", "*nothing", "&anchor 1", "!!str 7",
        "\"500m\"", "4GB", "512m", "-5Gi", "1.5m", "UPPER_case", "-leading", "a b c", "\"0 */6 * * *\"", "@reboot",
        "[[[[[[[[", "}}}", "|\n  block\n", ">-\n  folded\n", "- item\n- item", "\"unterminated",
    ]

    func apply(to bytes: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        guard !bytes.isEmpty else { return Array(Self.values[random.below(Self.values.count)].utf8) }
        var bytes = bytes
        switch self {
        case .dropBytes:
            let start = random.below(bytes.count)
            bytes.removeSubrange(start..<min(bytes.count, start + 1 + random.below(16)))
        case .duplicateBytes:
            let start = random.below(bytes.count)
            let slice = bytes[start..<min(bytes.count, start + 1 + random.below(16))]
            bytes.insert(contentsOf: slice, at: start)
        case .flipBit:
            bytes[random.below(bytes.count)] ^= UInt8(1) << UInt8(random.below(8))
        case .randomByte:
            bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next())
        case .insertSpecial:
            bytes.insert(contentsOf: Self.specials[random.below(Self.specials.count)], at: random.below(bytes.count + 1))
        case .truncate:
            bytes.removeSubrange(random.below(bytes.count)...)
        case .shuffleLines, .dropLine, .duplicateLine, .swapLines, .reindentLine:
            var lines = Self.lines(bytes)
            let index = random.below(lines.count)
            switch self {
            case .shuffleLines:
                let end = min(lines.count, index + 2 + random.below(6))
                lines[index..<end].shuffle(using: &random)
            case .dropLine:
                lines.remove(at: index)
            case .duplicateLine:
                lines.insert(lines[index], at: index)
            case .swapLines:
                lines.swapAt(index, random.below(lines.count))
            default:
                if random.below(2) == 0 {
                    lines[index].insert(contentsOf: Array(repeating: UInt8(ascii: " "), count: 1 + random.below(4)), at: 0)
                } else {
                    lines[index] = Array(lines[index].drop { $0 == UInt8(ascii: " ") })
                }
            }
            bytes = lines.flatMap { $0 }
        case .retypeValue:
            // The value after a random `: `, up to the end of the line or of the flow item it is in.
            let separators = bytes.indices.dropLast().filter { bytes[$0] == UInt8(ascii: ":") && bytes[$0 + 1] == UInt8(ascii: " ") }
            guard !separators.isEmpty else { return bytes }
            let start = separators[random.below(separators.count)] + 2
            let stops: Set<UInt8> = [UInt8(ascii: "\n"), UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")]
            let end = bytes[start...].firstIndex { stops.contains($0) } ?? bytes.endIndex
            bytes.replaceSubrange(start..<end, with: Array(Self.values[random.below(Self.values.count)].utf8))
        }
        return bytes
    }

    /// Lines with their line feeds, so joining them gives the bytes back.
    private static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        for byte in bytes {
            current.append(byte)
            if byte == UInt8(ascii: "\n") {
                lines.append(current)
                current = []
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
