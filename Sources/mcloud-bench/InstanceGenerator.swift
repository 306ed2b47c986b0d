import Foundation
import MCloudSynthetic

/// `mcloud-bench generate`: writes a generated instance to a folder, for `mcloud -f DIR/Manifests --providers
/// DIR/Providers`. The default is the report's large example: 50 clouds and 500 cells (100 services and 25 databases,
/// each in four audiences).
enum InstanceGenerator {
    static let usage = "usage: mcloud-bench generate --out DIR [--clouds N] [--services N] [--databases N] [--seed N]"

    static func run(_ arguments: [String]) {
        var options: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            guard ["--out", "--clouds", "--services", "--databases", "--seed"].contains(arguments[index]), index + 1 < arguments.count else {
                fail("unexpected argument '\(arguments[index])'")
            }
            options[arguments[index]] = arguments[index + 1]
            index += 2
        }
        guard let out = options["--out"] else { fail("--out DIR is required") }
        func number(_ name: String, _ fallback: Int) -> Int {
            guard let text = options[name] else { return fallback }
            guard let value = Int(text), value >= 0 else { fail("\(name) needs a whole number, not '\(text)'") }
            return value
        }
        let size = SyntheticInstance.Size(clouds: number("--clouds", 50), services: number("--services", 100), databases: number("--databases", 25))
        let instance = SyntheticInstance(size: size, seed: UInt64(number("--seed", 1)))
        do {
            try instance.write(to: out)
        } catch {
            fail("cannot write \(out): \(error.localizedDescription)")
        }
        print("\(out): \(size.clouds) clouds, \(4 * size.services) service cells and \(4 * size.databases) database cells in \(instance.files.count) files; mcloud plan -f \(out)/Manifests --providers \(out)/Providers")
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("mcloud-bench generate: \(message)\n\(usage)\n".utf8))
        exit(1)
    }
}
