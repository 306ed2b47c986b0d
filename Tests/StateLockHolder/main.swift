// Another mcloud process for the postgres:// lock tests: takes the lock of a state URL and holds it until told
// otherwise on standard input, so a test can meet a real holder in another process, kill it, or break its lock.
//
//   StateLockHolder URL OPERATION    prints "LOCKED <lock id>" (or "ERROR <message>" and exits 1), then reads lines:
//     write LINEAGE SERIAL           writes an empty state; prints "OK" or "ERROR <message>"
//     unlock                         releases the lock; prints "OK" or "ERROR <message>"
//   End of input exits without unlocking: the connection closes, as when the process dies.
import Foundation
import MCloudProvider
import MCloudState

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    say("ERROR usage: StateLockHolder URL OPERATION")
    exit(2)
}
let backend: PostgresStateBackend
let lock: LockInfo
do {
    backend = try PostgresStateBackend(url: arguments[1])
    lock = try backend.lock(operation: arguments[2])
} catch {
    say("ERROR \(error)")
    exit(1)
}
say("LOCKED \(lock.id)")
while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    do {
        switch words.first {
        case "write" where words.count == 3:
            try backend.write(State(lineage: words[1], serial: Int(words[2]) ?? 0, resources: []))
        case "unlock":
            try backend.unlock(id: lock.id)
        default:
            say("ERROR unknown command: \(line)")
            continue
        }
        say("OK")
    } catch {
        say("ERROR \(error)")
    }
}
